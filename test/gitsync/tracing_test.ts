/**
 * OTLP tracing through the compiled gitsync-manager: with OTEL_EXPORTER_OTLP_ENDPOINT pointing at a real
 * Jaeger's OTLP gRPC receiver, deploying an Application produces one trace per Revision reconcile whose
 * render, plan and apply-group spans are children of it, under the service name and resource attributes
 * from the environment; read back through Jaeger's query API.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { loadCrds } from "../../controller/gitsync/crds.ts";
import { installCrds, KubeClient } from "../../internal/k8s/mod.ts";
import { type RunningBinary, startBinary } from "../harness/binary.ts";
import { type GitHttpServer, startGitHttpServer } from "../harness/git_server.ts";
import { type JaegerServer, startJaeger } from "../harness/jaeger.ts";
import { type KubeApiServer, startKubeApiServer } from "../harness/k8s.ts";
import { createNamespace, serviceAccountWithRole } from "../harness/k8s_fixtures.ts";
import { untilWithLog } from "../harness/until.ts";
import { API_VERSION, type Application } from "../../controller/gitsync/api/mod.ts";

const NS = "traced";
const SERVICE = "gitsync-tracing-test";

interface JaegerSpan {
  traceID: string;
  spanID: string;
  operationName: string;
  references: { refType: string; spanID: string }[];
  tags: { key: string; value: unknown }[];
  processID: string;
}
interface JaegerTrace {
  spans: JaegerSpan[];
  processes: Record<string, { serviceName: string; tags: { key: string; value: unknown }[] }>;
}

describe("gitsync-manager tracing over OTLP gRPC", () => {
  let k8s: KubeApiServer;
  let git: GitHttpServer;
  let jaeger: JaegerServer;
  let admin: KubeClient;
  let manager: RunningBinary;
  let cacheRoot: string;

  before(async () => {
    [k8s, git, jaeger] = await Promise.all([startKubeApiServer(), startGitHttpServer(), startJaeger()]);
    admin = KubeClient.fromKubeconfig({ path: k8s.kubeconfigPath });
    cacheRoot = await mkdtemp(join(tmpdir(), "gitsync-tracing-"));
    await installCrds(admin, await loadCrds(), { fieldManager: "test", timeoutMs: 30_000 });
    await createNamespace(admin, NS);
    (await serviceAccountWithRole(admin, NS, "deployer", [
      { apiGroups: [""], resources: ["configmaps"], verbs: ["*"] },
    ])).close();
    manager = await startBinary("gitsync-manager", [
      "run",
      "--kubeconfig",
      k8s.kubeconfigPath,
      "--health-probe-bind-address",
      "127.0.0.1:0",
      "--cache-dir",
      cacheRoot,
      "--drift-resync-interval",
      "1h",
    ], {
      readyPath: "/readyz",
      env: {
        ENABLE_WEBHOOKS: "false",
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://${jaeger.otlpGrpcEndpoint}`,
        OTEL_SERVICE_NAME: SERVICE,
        OTEL_RESOURCE_ATTRIBUTES: "deployment.environment=ci",
      },
    });
  });
  after(async () => {
    await manager?.stop();
    admin?.close();
    await Promise.all([k8s?.stop(), git?.stop(), jaeger?.stop()]);
    if (cacheRoot) await rm(cacheRoot, { recursive: true, force: true });
  });

  const until = untilWithLog(() => manager.output(), { ms: 40_000 });

  it("a deployment's Revision reconcile is one trace with render, plan and apply-group children", async () => {
    const repo = await git.createRepo("traced", {
      "app/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: traced\ndata:\n  a: b\n",
    });
    const create = (kind: string, plural: string, name: string, spec: unknown) =>
      admin.request({
        method: "POST",
        path: `/apis/${API_VERSION}/namespaces/${NS}/${plural}`,
        body: { apiVersion: API_VERSION, kind, metadata: { name }, spec },
      });
    await create("Repository", "repositories", "traced", { git: { url: repo.url }, pollInterval: "1h" });
    await create("Application", "applications", "traced", {
      serviceAccountName: "deployer",
      sync: { automatic: true },
      source: { repositoryRef: { name: "traced" }, path: "app" },
    });
    await until("deployed", async () => {
      const a = await admin.request<Application>({
        path: `/apis/${API_VERSION}/namespaces/${NS}/applications/traced`,
      });
      return a.status?.deployedRevision;
    });

    // Spans leave in batches (about a second); the trace with an apply group is the rollout's.
    const traces = await until("traces in Jaeger", async () => {
      const res = await fetch(
        `${jaeger.queryUrl}/api/traces?service=${SERVICE}&operation=${
          encodeURIComponent("reconcile Revision")
        }&limit=50`,
      );
      const body = await res.json() as { data: JaegerTrace[] };
      const withApply = body.data.filter((t) => t.spans.some((s) => s.operationName === "apply group"));
      const withPlan = body.data.filter((t) => t.spans.some((s) => s.operationName === "plan"));
      return withApply.length && withPlan.length ? body.data : undefined;
    });
    const names = new Set(traces.flatMap((t) => t.spans.map((s) => s.operationName)));
    for (const n of ["reconcile Revision", "render", "plan", "apply group"]) {
      assert.ok(names.has(n), `${n} in ${[...names]}`);
    }

    for (const t of traces) {
      const root = t.spans.find((s) => s.operationName === "reconcile Revision")!;
      assert.equal(root.references.length, 0, "the reconcile span is the root");
      assert.match(
        String(root.tags.find((x) => x.key === "gitsync.object")?.value),
        new RegExp(`^${NS}/traced-`),
      );
      for (const child of t.spans.filter((s) => s !== root && s.operationName !== "render")) {
        assert.deepEqual(child.references.map((r) => [r.refType, r.spanID]), [["CHILD_OF", root.spanID]]);
      }
      const process = t.processes[root.processID]!;
      assert.equal(process.serviceName, SERVICE);
      assert.ok(process.tags.some((x) => x.key === "deployment.environment" && x.value === "ci"));
    }
    const apply = traces.flatMap((t) => t.spans).find((s) => s.operationName === "apply group")!;
    assert.equal(apply.tags.find((x) => x.key === "gitsync.stage")?.value, "wave");
    const plan = traces.flatMap((t) => t.spans).find((s) => s.operationName === "plan")!;
    assert.match(
      String(plan.tags.find((x) => x.key === "gitsync.plan.digest")?.value),
      /^sha256:[0-9a-f]{64}$/,
    );
    // Other controllers are traced too.
    const services = await (await fetch(`${jaeger.queryUrl}/api/operations?service=${SERVICE}`)).json() as {
      data: { name: string }[];
    };
    const operations = services.data.map((o) => o.name);
    for (const n of ["reconcile Repository", "reconcile Application"]) {
      assert.ok(operations.includes(n), `${n} in ${operations}`);
    }
  });
});
