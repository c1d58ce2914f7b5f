/**
 * The release's three charts (deploy/memsvc/chart, deploy/vault/chart, deploy/gitsync/chart) with the real
 * helm: they lint, render what the values ask (image by tag or digest, restricted security context, probes,
 * secrets by reference, PDB, Ingress, ServiceMonitor), refuse replicas > 1 on the embedded database, and
 * installed with `helm install` into a cluster with workload controllers and kwok nodes their Deployments
 * reach the desired replicas; the API server accepts every rendered object (server-side dry run).
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { parseAllDocuments } from "yaml";
import { applyObject, KubeClient, type KubeObject } from "../../internal/k8s/mod.ts";
import { cachedBinary } from "../../scripts/testenv/go_build.ts";
import { HELM } from "../../scripts/testenv/servers.ts";
import { helmEnv } from "../../scripts/release/charts.ts";
import { ROOT } from "../harness/binary.ts";
import { type KubeApiServer, startKubeApiServer } from "../harness/k8s.ts";
import { createNamespace } from "../harness/k8s_fixtures.ts";
import { skipBecause } from "../harness/skip.ts";

const run = promisify(execFile);
const helm = cachedBinary(HELM);
const CHARTS = {
  memsvc: join(ROOT, "deploy/memsvc/chart"),
  vault: join(ROOT, "deploy/vault/chart"),
  gitsync: join(ROOT, "deploy/gitsync/chart"),
};
/** What each chart needs from the user: the Secrets it references by name. */
const REQUIRED = {
  memsvc: ["auth.existingSecret=memsvc-auth"],
  vault: ["auth.existingSecret=vault-auth"],
  gitsync: [],
} as const;
const DIGEST = `sha256:${"ab".repeat(32)}`;

const objects = (text: string) =>
  parseAllDocuments(text).map((d) => d.toJS() as KubeObject).filter((o) => o && o.kind);
// deno-lint-ignore no-explicit-any
const find = (os: KubeObject[], kind: string): any => os.find((o) => o.kind === kind);

describe("the release's Helm charts", {
  skip: skipBecause(!helm && "helm is not built: `deno task testenv:build helm`"),
}, () => {
  let home: string;
  let k8s: KubeApiServer;
  let admin: KubeClient;
  const helmRun = (args: string[]) =>
    run(helm!, args, {
      env: { ...helmEnv(home), KUBECONFIG: k8s?.kubeconfigPath ?? "" },
      maxBuffer: 16 << 20,
    });
  const template = async (chart: keyof typeof CHARTS, values: string[] = [], namespace = "apps") =>
    objects(
      (await helmRun([
        "template",
        chart,
        CHARTS[chart],
        "--namespace",
        namespace,
        ...[...REQUIRED[chart], ...values].flatMap((v) => ["--set", v]),
      ])).stdout,
    );

  before(async () => {
    home = await mkdtemp(join(tmpdir(), "charts-test-"));
    k8s = await startKubeApiServer({ workloads: true });
    admin = KubeClient.fromKubeconfig({ path: k8s.kubeconfigPath });
    await createNamespace(admin, "apps", { forPods: true });
  });
  after(async () => {
    admin?.close();
    await k8s?.stop();
    if (home) await rm(home, { recursive: true, force: true });
  });

  it("lint clean", async () => {
    for (const chart of Object.keys(CHARTS) as (keyof typeof CHARTS)[]) {
      const { stdout } = await helmRun([
        "lint",
        "--strict",
        CHARTS[chart],
        ...REQUIRED[chart].flatMap((v) => ["--set", v]),
      ]);
      assert.match(stdout, /1 chart\(s\) linted, 0 chart\(s\) failed/, chart);
    }
  });

  it("memsvc and vault: restricted pods as 65532 on a read-only root, /health probes, secrets by reference", async () => {
    for (const chart of ["memsvc", "vault"] as const) {
      const os = await template(chart);
      const pod = find(os, "Deployment").spec.template.spec;
      const c = pod.containers[0];
      assert.deepEqual(pod.securityContext, {
        runAsNonRoot: true,
        runAsUser: 65532,
        runAsGroup: 65532,
        fsGroup: 65532,
        seccompProfile: { type: "RuntimeDefault" },
      });
      assert.deepEqual(c.securityContext, {
        runAsNonRoot: true,
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
        capabilities: { drop: ["ALL"] },
      });
      for (const probe of ["startupProbe", "readinessProbe", "livenessProbe"]) {
        assert.equal(c[probe].httpGet.path, "/health", `${chart} ${probe}`);
      }
      assert.equal(c.image, `ghcr.io/toolkit/${chart}:0.1.0`);
      // Every secret value comes from a Secret the user names; the chart writes none.
      assert.equal(os.filter((o) => o.kind === "Secret").length, 0);
      const secretVars = c.env.filter((e: { valueFrom?: unknown }) => e.valueFrom);
      assert.ok(
        secretVars.every((e: { valueFrom: { secretKeyRef: { name: string } } }) =>
          e.valueFrom.secretKeyRef.name === `${chart}-auth`
        ),
      );
      assert.ok(c.volumeMounts.some((m: { mountPath: string }) => m.mountPath === "/tmp"));
      assert.equal(find(os, "PodDisruptionBudget").spec.maxUnavailable, 1);
      assert.equal(find(os, "PersistentVolumeClaim").spec.accessModes[0], "ReadWriteOnce");
      assert.equal(find(os, "Deployment").spec.strategy.type, "Recreate");
      await assert.rejects(helmRun(["template", chart, CHARTS[chart]]), /auth\.existingSecret is required/);
    }
  });

  it("replicas > 1 only with an external PostgreSQL (and for vault a shared notes volume); the template refuses otherwise", async () => {
    for (const chart of ["memsvc", "vault"] as const) {
      await assert.rejects(template(chart, ["replicas=2"]), /replicas > 1 needs an external PostgreSQL/);
    }
    await assert.rejects(
      template("vault", ["replicas=2", "database.existingSecret=vault-db"]),
      /replicas > 1 needs a notes volume every replica mounts/,
    );
    const memsvc = await template("memsvc", ["replicas=3", "database.existingSecret=memsvc-db"]);
    const dep = find(memsvc, "Deployment");
    assert.equal(dep.spec.replicas, 3);
    assert.equal(dep.spec.strategy.type, "RollingUpdate");
    assert.deepEqual(
      dep.spec.template.spec.containers[0].env.find((e: { name: string }) => e.name === "MEMSVC_DATABASE_URL")
        .valueFrom,
      { secretKeyRef: { name: "memsvc-db", key: "url" } },
    );
    assert.equal(find(memsvc, "PersistentVolumeClaim"), undefined);
    assert.equal(find(memsvc, "PodDisruptionBudget").spec.minAvailable, 1);
    const vault = await template("vault", [
      "replicas=2",
      "database.existingSecret=vault-db",
      "persistence.accessMode=ReadWriteMany",
    ]);
    assert.equal(find(vault, "PersistentVolumeClaim").spec.accessModes[0], "ReadWriteMany");
  });

  it("images by tag or pinned by digest, in all three charts", async () => {
    for (const chart of ["memsvc", "vault", "gitsync"] as const) {
      const repo = chart === "gitsync" ? "gitsync-manager" : chart;
      const byTag = find(await template(chart, ["image.tag=1.2.3"]), "Deployment");
      assert.equal(byTag.spec.template.spec.containers[0].image, `ghcr.io/toolkit/${repo}:1.2.3`);
      const pinned = find(await template(chart, [`image.digest=${DIGEST}`]), "Deployment");
      assert.equal(pinned.spec.template.spec.containers[0].image, `ghcr.io/toolkit/${repo}@${DIGEST}`);
      await assert.rejects(template(chart, ["image.digest=latest"]), /image\.digest must be sha256/);
    }
  });

  it("optional Ingress and (memsvc) ServiceMonitor; every object accepted by the API server", async () => {
    const ingress = ["ingress.enabled=true", "ingress.className=nginx", "baseUrl=https://x.example.com"];
    const memsvc = await template("memsvc", [
      ...ingress,
      "serviceMonitor.enabled=true",
      "serviceMonitor.bearerTokenSecret.name=memsvc-metrics",
    ]);
    const monitor = find(memsvc, "ServiceMonitor");
    assert.equal(monitor.spec.endpoints[0].path, "/v1/admin/metrics/prom");
    assert.deepEqual(monitor.spec.endpoints[0].authorization.credentials, {
      name: "memsvc-metrics",
      key: "token",
    });
    const vault = await template("vault", [...ingress, "auth.githubClientId=abc"]);
    const gitsync = await template("gitsync", [
      "certManager.enabled=false",
      "webhookCert.secretName=webhook-tls",
      `webhookCert.caBundle=${Buffer.from("-----BEGIN CERTIFICATE-----\n").toString("base64")}`,
    ], "apps");
    assert.equal(find(vault, "Ingress").spec.rules[0].http.paths[0].backend.service.port.name, "http");
    // The ServiceMonitor's CRD belongs to the Prometheus Operator, which this cluster does not run.
    for (const o of [...memsvc, ...vault, ...gitsync].filter((o) => o.kind !== "ServiceMonitor")) {
      await applyObject(admin, o, { serverSide: true, fieldManager: "charts-test", dryRun: true });
    }
  });

  it("installed with helm into the cluster, the Deployments reach their desired replicas", async () => {
    const install = (name: string, chart: keyof typeof CHARTS, values: string[]) =>
      helmRun([
        "install",
        name,
        CHARTS[chart],
        "--namespace",
        "apps",
        ...[...REQUIRED[chart], ...values].flatMap((v) => ["--set", v]),
      ]);
    // No storage provisioner runs here: the embedded database's volume is an emptyDir.
    await install("memsvc", "memsvc", ["replicas=2", "database.existingSecret=memsvc-db"]);
    await install("vault", "vault", ["persistence.enabled=false"]);
    await install("gitsync", "gitsync", [
      "certManager.enabled=false",
      "webhookCert.secretName=webhook-tls",
      `webhookCert.caBundle=${Buffer.from("-----BEGIN CERTIFICATE-----\n").toString("base64")}`,
    ]);
    const want = { memsvc: 2, vault: 1, "gitsync-manager": 2 };
    const deadline = Date.now() + 60_000;
    for (;;) {
      const { items } = await admin.request<{ items: KubeObject[] }>({
        path: "/apis/apps/v1/namespaces/apps/deployments",
      });
      const ready = Object.fromEntries(
        // deno-lint-ignore no-explicit-any
        items.map((d: any) => [d.metadata.name, d.status?.readyReplicas ?? 0]),
      );
      const names = {
        memsvc: ready["memsvc"],
        vault: ready["vault"],
        "gitsync-manager": ready["gitsync-manager"],
      };
      if (JSON.stringify(names) === JSON.stringify(want)) break;
      if (Date.now() > deadline) {
        assert.fail(`ready replicas ${JSON.stringify(ready)}, want ${JSON.stringify(want)}`);
      }
      await new Promise((r) => setTimeout(r, 500));
    }
  });
});
