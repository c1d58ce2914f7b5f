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
import { CHART, INSTALL_MANIFEST, installManifest, renderChart } from "../../scripts/gen_install.ts";
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

  it("install.yaml is the chart rendered with its defaults (`deno task gen:install`)", async () => {
    assert.equal(await readFile(INSTALL_MANIFEST, "utf8"), await installManifest(helm!));
  });

  it("defaults: two replicas, leader election, cert-manager, no default service account, no receiver", async () => {
    const os = objects(await renderChart(helm!));
    assert.equal(byKind(os, "Deployment")!.spec.replicas, 2);
    const args = managerArgs(os);
    assert.ok(args.includes("--leader-elect"));
    assert.ok(!args.some((a: string) => a.startsWith("--default-service-account")));
    assert.ok(!args.some((a: string) => a.startsWith("--webhook-receiver-bind-address")));
    assert.ok(byKind(os, "Certificate") && byKind(os, "Issuer"));
    assert.equal(
      byKind(os, "MutatingWebhookConfiguration")!.metadata!.annotations!["cert-manager.io/inject-ca-from"],
      "gitsync-system/gitsync-webhook",
    );
    assert.equal(byKind(os, "Service", "gitsync-receiver"), undefined);
  });

  it("values: defaultServiceAccount, webhookReceiver, metrics, own certificate; every object accepted by the API server", async () => {
    const text = await renderChart(helm!, [
      "defaultServiceAccount=deployer",
      "webhookReceiver.enabled=true",
      "metrics.enabled=true",
      "metrics.certSecret=metrics-tls",
      "certManager.enabled=false",
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
          ["certManager.enabled=false"],
          /webhookCert\.(secretName|caBundle) is required without cert-manager/,
        ],
        [["metrics.enabled=true"], /metrics.certSecret is required when metrics are enabled/],
      ] as const
    ) {
      await assert.rejects(renderChart(helm!, [...values]), message);
    }
  });
});
