/**
 * dist/edgectl check against kube-apiserver with workload controllers and kwok nodes: a controller
 * Deployment and an agent DaemonSet whose Pods really become Ready (or crash-loop), the edgeproxy.io
 * CRDs, and the real Gateway API GatewayClass CRD (v1.4.0, from the Go module cache).
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { after, before, describe, test } from "node:test";
import { parse as parseYaml } from "yaml";
import { installCrds, KubeClient, type KubeObject } from "../../internal/k8s/mod.ts";
import { CRD_FILES } from "../../internal/edgeproxy/crds.ts";
import { runBinary } from "../harness/binary.ts";
import { type KubeApiServer, POD_OUTCOME_ANNOTATION, startKubeApiServer } from "../harness/k8s.ts";

const execFileAsync = promisify(execFile);
const NS = "edge-system";
/** Every CRD edgectl carries (other kinds may join; the counts follow). */
const CRDS = CRD_FILES.length;

let k8s: KubeApiServer;
let admin: KubeClient;
let work: string;
/** The real GatewayClass CRD, installed by the last test. */
let gatewayClassCrd: KubeObject;

function edgectl(args: string[]) {
  return runBinary("edgectl", args, { env: { KUBECONFIG: k8s.kubeconfigPath }, cwd: work });
}

interface Report {
  success: boolean;
  categories: { categoryName: string; checks: { description: string; result: string; error?: string }[] }[];
}

async function checkJson(): Promise<{ code: number | null; report: Report }> {
  const r = await edgectl(["check", "-o", "json"]);
  return { code: r.code, report: JSON.parse(r.stdout) };
}

/** Polls check until `done` holds (bounded: workloads take a few seconds to become Ready). */
async function waitFor(done: (r: Report) => boolean): Promise<Report> {
  let last: Report | undefined;
  for (let i = 0; i < 40; i++) {
    last = (await checkJson()).report;
    if (done(last)) return last;
    await new Promise((r) => setTimeout(r, 500));
  }
  assert.fail(`check never reached the expected state: ${JSON.stringify(last, null, 2)}`);
}

const results = (r: Report) =>
  r.categories.map((c) => [c.categoryName, c.checks.map((x) => x.result).join(",")]);

const labels = (component: string) => ({
  "app.kubernetes.io/name": "edgeproxy",
  "app.kubernetes.io/component": component,
});

/** The workloads select on `app` too, so the extra Pod below is not adopted (and deleted) by the DaemonSet. */
const selector = (component: string) => ({ ...labels(component), app: `edge-${component}` });

function podTemplate(component: string) {
  return {
    metadata: { labels: selector(component) },
    spec: { containers: [{ name: component, image: `registry.example/edge-${component}:v1` }] },
  };
}

async function create(path: string, body: unknown) {
  await admin.request({ method: "POST", path, body });
}

describe("edgectl check against a cluster with workloads", () => {
  before(async () => {
    const { stdout } = await execFileAsync("go", [
      "mod",
      "download",
      "-json",
      "sigs.k8s.io/gateway-api@v1.4.0",
    ], {
      cwd: tmpdir(),
    }).catch((err) => {
      throw new Error(
        `go mod download sigs.k8s.io/gateway-api@v1.4.0 failed (Go and its module proxy are needed): ${err}`,
      );
    });
    gatewayClassCrd = parseYaml(readFileSync(
      join(JSON.parse(stdout).Dir, "config/crd/standard/gateway.networking.k8s.io_gatewayclasses.yaml"),
      "utf8",
    )) as KubeObject;
    k8s = await startKubeApiServer({ workloads: true });
    admin = KubeClient.fromKubeconfig({ path: k8s.kubeconfigPath });
    work = await mkdtemp(join(tmpdir(), "edgectl-check-"));
  });

  after(async () => {
    admin?.close();
    await k8s?.stop();
    if (work) await rm(work, { recursive: true, force: true });
  });

  test("an empty cluster fails every check, with hints", async () => {
    const r = await edgectl(["check"]);
    assert.equal(r.code, 1);
    assert.equal(r.stderr, "error: some checks failed\n");
    assert.match(
      r.stdout,
      new RegExp(
        `^edgeproxy-crds\n-{14}\n× the edgeproxy\\.io CRDs are installed \\(0/${CRDS}\\)\n {4}missing: proxygateways\\.edgeproxy\\.io, `,
      ),
    );
    assert.match(r.stdout, /\n {4}see: edgectl install-crds\n/);
    assert.match(
      r.stdout,
      /\nedgeproxy-controller\n-+\n× controller Pods are Ready\n {4}no controller Pods \(app\.kubernetes\.io\/name=edgeproxy,app\.kubernetes\.io\/component=controller\) in namespace edge-system\n/,
    );
    assert.match(r.stdout, /\ngateway-api\n-+\n‼ the Gateway API CRDs are installed\n/);
    assert.match(r.stdout, /\nStatus check results are ×\n$/);
  });

  test("with the CRDs and Ready controller and agents, check passes (with a warning)", async () => {
    assert.equal((await edgectl(["install-crds"])).code, 0);
    await create("/api/v1/namespaces", { metadata: { name: NS } });
    await create(`/apis/apps/v1/namespaces/${NS}/deployments`, {
      metadata: { name: "edge-controller", labels: labels("controller") },
      spec: {
        replicas: 1,
        selector: { matchLabels: selector("controller") },
        template: podTemplate("controller"),
      },
    });
    await create(`/apis/apps/v1/namespaces/${NS}/daemonsets`, {
      metadata: { name: "edge-agent", labels: labels("agent") },
      spec: { selector: { matchLabels: selector("agent") }, template: podTemplate("agent") },
    });
    const report = await waitFor((r) => r.success);
    assert.deepEqual(results(report), [
      ["edgeproxy-crds", "success,success"],
      ["edgeproxy-controller", "success"],
      ["edgeproxy-agents", "success"],
      ["gateway-api", "warning"],
    ]);
    assert.equal(report.categories[2]!.checks[0]!.description, "agent Pods are Ready (2/2)");
    const r = await edgectl(["check"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stdout,
      new RegExp(`^√ the edgeproxy\\.io CRDs are installed \\(${CRDS}/${CRDS}\\)$`, "m"),
    );
    assert.match(r.stdout, /\nStatus check results are √ \(with warnings\)\n$/);
  });

  test("a crash-looping agent fails the agents check and names the Pod and reason", async () => {
    await create(`/api/v1/namespaces/${NS}/pods`, {
      metadata: {
        name: "edge-agent-extra",
        labels: labels("agent"),
        annotations: { [POD_OUTCOME_ANNOTATION]: "crashloop" },
      },
      spec: {
        nodeName: "kwok-node-0",
        containers: [{ name: "agent", image: "registry.example/edge-agent:v1" }],
      },
    });
    const report = await waitFor((r) =>
      r.categories[2]!.checks[0]!.error?.includes("CrashLoopBackOff") ?? false
    );
    assert.equal(report.success, false);
    assert.equal(report.categories[2]!.checks[0]!.description, "agent Pods are Ready (2/3)");
    assert.equal(report.categories[2]!.checks[0]!.error, "edge-agent-extra on kwok-node-0: CrashLoopBackOff");
    const r = await edgectl(["check"]);
    assert.equal(r.code, 1);
    await admin.request({
      method: "DELETE",
      path: `/api/v1/namespaces/${NS}/pods/edge-agent-extra`,
      query: { gracePeriodSeconds: 0 },
    });
    await waitFor((x) => x.success);
  });

  test("a GatewayClass of the proxy must be Accepted", async () => {
    await installCrds(admin, [gatewayClassCrd], { fieldManager: "edgectl-test", timeoutMs: 60_000 });
    const none = await waitFor((r) => r.categories[3]!.checks[0]!.description.startsWith("a GatewayClass"));
    assert.equal(none.categories[3]!.checks[0]!.result, "warning");
    await create("/apis/gateway.networking.k8s.io/v1/gatewayclasses", {
      apiVersion: "gateway.networking.k8s.io/v1",
      kind: "GatewayClass",
      metadata: { name: "edge" },
      spec: { controllerName: "edgeproxy.io/gateway-controller" },
    });
    const pending = await checkJson();
    assert.equal(pending.code, 1);
    assert.deepEqual(pending.report.categories[3]!.checks[0], {
      description: "GatewayClasses of edgeproxy.io/gateway-controller are Accepted (0/1)",
      result: "error",
      error: "edge: Accepted Unknown (Pending)",
      hint: "edgectl gateway-api conformance",
    });
    await admin.request({
      method: "PATCH",
      path: "/apis/gateway.networking.k8s.io/v1/gatewayclasses/edge/status",
      contentType: "application/merge-patch+json",
      body: {
        status: {
          conditions: [{
            type: "Accepted",
            status: "True",
            reason: "Accepted",
            message: "",
            lastTransitionTime: "2026-11-20T09:00:00Z",
          }],
        },
      },
    });
    const accepted = await checkJson();
    assert.equal(accepted.code, 0);
    assert.deepEqual(results(accepted.report)[3], ["gateway-api", "success"]);
    const r = await edgectl(["check"]);
    assert.match(r.stdout, /\nStatus check results are √\n$/);
    assert.match((await edgectl(["check", "--help"])).stdout, /Examples:[\s\S]*edgectl check/);
  });
});
