/**
 * deploy/gitsync/chart with the real helm (built from its Go module by the test command): it lints, renders
 * what each value asks for, refuses what a value requires, and everything it renders is accepted by a real
 * kube-apiserver (server-side dry run). deploy/gitsync/install.yaml must be the chart's default rendering.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { parseAllDocuments } from "yaml";
import { applyObject, KubeClient, type KubeObject } from "../../internal/k8s/mod.ts";
import { cachedBinary } from "../../scripts/testenv/go_build.ts";
import { HELM } from "../../scripts/testenv/servers.ts";
import {
  CHART,
  INSTALL_MANIFEST,
  installManifest,
  renderChart,
  ROLES_MANIFEST,
  rolesManifest,
} from "../../scripts/gen_install.ts";
import { approvalWebhook } from "../../controller/gitsync/approval/webhook_server.ts";
import { type KubeApiServer, startKubeApiServer } from "../harness/k8s.ts";
import { skipBecause } from "../harness/skip.ts";

const helm = cachedBinary(HELM);
const objects = (text: string) =>
  parseAllDocuments(text).map((d) => d.toJS() as KubeObject).filter((o) => o && o.kind);
// deno-lint-ignore no-explicit-any
const byKind = (os: KubeObject[], kind: string, name?: string): any =>
  os.find((o) => o.kind === kind && (name === undefined || o.metadata?.name === name));
const managerArgs = (os: KubeObject[]) => byKind(os, "Deployment").spec.template.spec.containers[0].args;

describe("the gitsync Helm chart", {
  skip: skipBecause(!helm && "helm is not built: `deno task testenv:build helm`"),
}, () => {
  let k8s: KubeApiServer;
  let admin: KubeClient;
  before(async () => {
    k8s = await startKubeApiServer();
    admin = KubeClient.fromKubeconfig({ path: k8s.kubeconfigPath });
  });
  after(async () => {
    admin?.close();
    await k8s?.stop();
  });

  it("lints clean", async () => {
    const { stdout } = await promisify(execFile)(helm!, ["lint", "--strict", CHART]);
    assert.match(stdout, /1 chart\(s\) linted, 0 chart\(s\) failed/);
  });

  it("install.yaml and roles.yaml are the chart rendered with its defaults (`deno task gen:install`)", async () => {
    assert.equal(await readFile(INSTALL_MANIFEST, "utf8"), await installManifest(helm!));
    assert.equal(await readFile(ROLES_MANIFEST, "utf8"), await rolesManifest(helm!));
    const roles = objects(await readFile(ROLES_MANIFEST, "utf8"));
    assert.deepEqual(roles.map((o) => `${o.kind}/${o.metadata!.name}`), [
      "ClusterRole/gitsync-viewer",
      "ClusterRole/gitsync-approver",
    ]);
  });

  it("defaults: two replicas, leader election, the manager's own webhook certificate (no cert-manager), no default service account, no receiver", async () => {
    const os = objects(await renderChart(helm!));
    assert.equal(byKind(os, "Deployment")!.spec.replicas, 2);
    const args = managerArgs(os);
    assert.ok(args.includes("--leader-elect"));
    assert.ok(args.includes("--webhook-cert-secret=gitsync-webhook-cert"), `${args}`);
    assert.ok(!args.some((a: string) => a.startsWith("--webhook-cert-path")));
    assert.ok(!args.includes("--enable-http2"));
    assert.ok(!args.some((a: string) => a.startsWith("--default-service-account")));
    assert.ok(!args.some((a: string) => a.startsWith("--webhook-receiver-bind-address")));
    // Nothing of cert-manager's: applying install.yaml needs no CRD that is not there.
    assert.equal(byKind(os, "Certificate"), undefined);
    assert.equal(byKind(os, "Issuer"), undefined);
    const config = byKind(os, "MutatingWebhookConfiguration");
    assert.equal(config.metadata.annotations, undefined);
    assert.equal(config.webhooks[0].clientConfig.caBundle, undefined, "the manager writes it");
    // The empty Secret it fills, and only the rights it needs for that.
    const secret = byKind(os, "Secret", "gitsync-webhook-cert");
    assert.equal(secret.type, "Opaque");
    assert.equal(secret.data, undefined);
    const role = byKind(os, "Role", "gitsync-manager-webhook-cert");
    assert.deepEqual(role.rules[0].resourceNames, ["gitsync-webhook-cert"]);
    const cluster = byKind(os, "ClusterRole", "gitsync-manager");
    assert.ok(
      cluster.rules.some((r: { resources: string[]; resourceNames?: string[] }) =>
        r.resources.includes("mutatingwebhookconfigurations") &&
        r.resourceNames?.join() === "gitsync-approval"
      ),
    );
    assert.equal(
      byKind(os, "Deployment").spec.template.spec.volumes.some((v: { name: string }) =>
        v.name === "webhook-cert"
      ),
      false,
    );
    assert.equal(byKind(os, "Service", "gitsync-receiver"), undefined);
  });

  it("the webhook is the one the manager registers in --local-webhook mode (rules, failurePolicy Fail)", async () => {
    const hook = byKind(objects(await renderChart(helm!)), "MutatingWebhookConfiguration").webhooks[0];
    const { clientConfig: _, ...expected } = approvalWebhook({ url: "https://127.0.0.1" });
    const { clientConfig, ...actual } = hook;
    assert.deepEqual(actual, expected);
    assert.equal(
      clientConfig.service.path,
      new URL(approvalWebhook({ url: "https://x" }).clientConfig.url).pathname,
    );
  });

  it("certManager.enabled: a Certificate and Issuer, CA injection, the Secret mounted; enableHttp2", async () => {
    const os = objects(await renderChart(helm!, ["certManager.enabled=true", "enableHttp2=true"]));
    assert.ok(byKind(os, "Certificate") && byKind(os, "Issuer"));
    assert.equal(
      byKind(os, "MutatingWebhookConfiguration")!.metadata!.annotations!["cert-manager.io/inject-ca-from"],
      "gitsync-system/gitsync-webhook",
    );
    const args = managerArgs(os);
    assert.ok(args.includes("--webhook-cert-path=/tmp/k8s-webhook-server/serving-certs"));
    assert.ok(args.includes("--enable-http2"));
    assert.ok(!args.some((a: string) => a.startsWith("--webhook-cert-secret")));
    assert.equal(byKind(os, "Secret", "gitsync-webhook-cert"), undefined, "cert-manager makes it");
    assert.equal(byKind(os, "Role", "gitsync-manager-webhook-cert"), undefined);
    assert.equal(
      byKind(os, "Deployment").spec.template.spec.volumes.find((v: { name: string }) =>
        v.name === "webhook-cert"
      )
        .secret.secretName,
      "gitsync-webhook-cert",
    );
  });

  it("values: defaultServiceAccount, webhookReceiver, metrics, own certificate; every object accepted by the API server", async () => {
    const text = await renderChart(helm!, [
      "defaultServiceAccount=deployer",
      "webhookReceiver.enabled=true",
      "metrics.enabled=true",
      "metrics.certSecret=metrics-tls",
      "webhookCert.secretName=webhook-tls",
      `webhookCert.caBundle=${Buffer.from("-----BEGIN CERTIFICATE-----\n").toString("base64")}`,
      "replicas=3",
      "tracing.endpoint=http://otel-collector.observability:4317",
      "tracing.headersSecret=otlp-headers",
    ], "gitsync");
    const os = objects(text);
    const args = managerArgs(os);
    for (
      const a of [
        "--default-service-account=deployer",
        "--webhook-receiver-bind-address=:9292",
        "--metrics-bind-address=:8443",
      ]
    ) {
      assert.ok(args.includes(a), `${a} in ${args}`);
    }
    assert.equal(byKind(os, "Service", "gitsync-receiver")!.spec.ports[0].targetPort, "receiver");
    const env = byKind(os, "Deployment", "gitsync-manager")!.spec.template.spec.containers[0].env;
    assert.deepEqual(
      env.filter((e: { name: string }) => e.name.startsWith("OTEL_")),
      [
        { name: "OTEL_EXPORTER_OTLP_ENDPOINT", value: "http://otel-collector.observability:4317" },
        { name: "OTEL_SERVICE_NAME", value: "gitsync" },
        {
          name: "OTEL_EXPORTER_OTLP_HEADERS",
          valueFrom: { secretKeyRef: { name: "otlp-headers", key: "headers" } },
        },
      ],
    );
    assert.equal(byKind(os, "Certificate"), undefined);
    assert.ok(byKind(os, "MutatingWebhookConfiguration")!.webhooks[0].clientConfig.caBundle);
    assert.ok(args.includes("--webhook-cert-path=/tmp/k8s-webhook-server/serving-certs"));
    assert.equal(byKind(os, "Secret", "gitsync-webhook-cert"), undefined);
    await admin.request({
      method: "POST",
      path: "/api/v1/namespaces",
      body: { metadata: { name: "gitsync" } },
    });
    for (const o of os) {
      await applyObject(admin, o, { serverSide: true, fieldManager: "chart-test", dryRun: true });
    }
  });

  it("a value the chosen setup needs is required, with a message saying which", async () => {
    for (
      const [values, message] of [
        [
          ["webhookCert.secretName=mine"],
          /webhookCert\.caBundle is required with webhookCert\.secretName/,
        ],
        [["metrics.enabled=true"], /metrics.certSecret is required when metrics are enabled/],
      ] as const
    ) {
      await assert.rejects(renderChart(helm!, [...values]), message);
    }
  });
});
