/**
 * dist/edgectl gateway-api against a real kube-apiserver serving the real Gateway API CRDs (v1.4.0,
 * standard channel), read from the Go module's config/crd/standard in the module cache (nothing
 * upstream is committed). Statuses are written through the status subresource, as a controller would.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { after, before, describe, test } from "node:test";
import { parse as parseYaml, stringify as toYaml } from "yaml";
import { installCrds, KubeClient, type KubeObject } from "../../internal/k8s/mod.ts";
import { ROOT, runBinary } from "../harness/binary.ts";
import { type KubeApiServer, startKubeApiServer } from "../harness/k8s.ts";
import { maskAge } from "./_tables.ts";

const GATEWAY_API_MODULE = "sigs.k8s.io/gateway-api@v1.4.0";
const OBJECTS = join(ROOT, "test/edgectl/fixtures/gateway-api/objects.yaml");
const REPORT = join(ROOT, "test/edgectl/fixtures/gateway-api/conformance-report.yaml");
const execFileAsync = promisify(execFile);

let k8s: KubeApiServer;
let admin: KubeClient;
let work: string;

/** The standard-channel CRDs of the pinned module, from the Go module cache (downloaded if needed). */
async function gatewayApiCrds(): Promise<KubeObject[]> {
  let dir: string;
  try {
    const { stdout } = await execFileAsync("go", ["mod", "download", "-json", GATEWAY_API_MODULE], {
      cwd: tmpdir(),
      env: { ...process.env, GO111MODULE: "on" },
    });
    dir = JSON.parse(stdout).Dir;
  } catch (err) {
    throw new Error(
      `go mod download ${GATEWAY_API_MODULE} failed (Go and its module proxy are needed): ${err}`,
    );
  }
  const crdDir = join(dir, "config/crd/standard");
  return readdirSync(crdDir).filter((f) => f.endsWith(".yaml")).sort().map((f) =>
    parseYaml(readFileSync(join(crdDir, f), "utf8")) as KubeObject
  );
}

function edgectl(args: string[], env: Record<string, string> = {}) {
  return runBinary("edgectl", args, { env: { KUBECONFIG: k8s.kubeconfigPath, ...env }, cwd: work });
}

async function ok(args: string[], env: Record<string, string> = {}): Promise<string> {
  const r = await edgectl(args, env);
  assert.equal(r.code, 0, `edgectl ${args.join(" ")}: ${r.stderr}`);
  assert.equal(r.stderr, "", `edgectl ${args.join(" ")}`);
  return r.stdout;
}

async function setStatus(plural: string, name: string, status: unknown, namespace?: string) {
  const ns = namespace ? `namespaces/${namespace}/` : "";
  await admin.request({
    method: "PATCH",
    path: `/apis/gateway.networking.k8s.io/v1/${ns}${plural}/${name}/status`,
    body: { status },
    contentType: "application/merge-patch+json",
  });
}

const cond = (type: string, status: string, reason: string) => ({
  type,
  status,
  reason,
  message: "",
  lastTransitionTime: "2026-11-20T09:00:00Z",
  observedGeneration: 1,
});

describe("edgectl gateway-api against kube-apiserver with the Gateway API v1.4.0 CRDs", () => {
  before(async () => {
    const crds = await gatewayApiCrds();
    k8s = await startKubeApiServer();
    admin = KubeClient.fromKubeconfig({ path: k8s.kubeconfigPath });
    work = await mkdtemp(join(tmpdir(), "edgectl-gwapi-"));
    // Before the CRDs: the first test checks the hint; then they are installed.
    const r = await edgectl(["gateway-api", "gateways"]);
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      /^error: the server does not serve gateways\.gateway\.networking\.k8s\.io: install the Gateway API CRDs \(v1\.4\.0, standard channel\)/,
    );
    await installCrds(admin, crds, { fieldManager: "edgectl-test", timeoutMs: 60_000 });
    await ok(["apply", "-f", OBJECTS]);
    await setStatus("gatewayclasses", "edge", {
      conditions: [
        cond("Accepted", "True", "Accepted"),
        cond("SupportedVersion", "True", "SupportedVersion"),
      ],
      supportedFeatures: [{ name: "Gateway" }, { name: "HTTPRoute" }, { name: "HTTPRouteHostRewrite" }],
    });
    await setStatus("gateways", "main", {
      addresses: [{ type: "IPAddress", value: "203.0.113.10" }],
      conditions: [cond("Accepted", "True", "Accepted"), cond("Programmed", "True", "Programmed")],
    }, "shop");
    const parent = (conditions: unknown[]) => ({
      parents: [{
        parentRef: { name: "main" },
        controllerName: "edgeproxy.io/gateway-controller",
        conditions,
      }],
    });
    await setStatus(
      "httproutes",
      "web",
      parent([cond("Accepted", "True", "Accepted"), cond("ResolvedRefs", "True", "ResolvedRefs")]),
      "shop",
    );
    await setStatus(
      "httproutes",
      "api",
      parent([cond("Accepted", "True", "Accepted"), cond("ResolvedRefs", "False", "BackendNotFound")]),
      "shop",
    );
  });

  after(async () => {
    admin?.close();
    await k8s?.stop();
    if (work) await rm(work, { recursive: true, force: true });
  });

  test("gatewayclasses, gc and gwc list the classes with controller and acceptance", async () => {
    const expected = `NAME    CONTROLLER                        ACCEPTED   AGE
edge    edgeproxy.io/gateway-controller   True       <age>
other   example.com/other-controller      Unknown    <age>
`;
    for (const word of ["gatewayclasses", "gc", "gwc"]) {
      assert.equal(maskAge(await ok(["gateway-api", word])), expected, word);
    }
    assert.equal(
      maskAge(await ok(["gwapi", "gc", "edge"])),
      `NAME   CONTROLLER                        ACCEPTED   AGE
edge   edgeproxy.io/gateway-controller   True       <age>
`,
    );
  });

  test("gateways and httproutes: -n, -A, EDGECTL_NAMESPACE, and List documents", async () => {
    const shopGateways = `NAME   CLASS   ADDRESS        PROGRAMMED   AGE
main   edge    203.0.113.10   True         <age>
`;
    assert.equal(maskAge(await ok(["gateway-api", "gateways", "-n", "shop"])), shopGateways);
    assert.equal(maskAge(await ok(["gateway-api", "gw"], { EDGECTL_NAMESPACE: "shop" })), shopGateways);
    assert.equal(
      maskAge(await ok(["gateway-api", "gw", "-A"])),
      `NAMESPACE   NAME        CLASS   ADDRESS        PROGRAMMED   AGE
default     elsewhere   other   <none>         Unknown      <age>
shop        main        edge    203.0.113.10   True         <age>
`,
    );
    assert.equal(
      maskAge(await ok(["gateway-api", "hr", "-n", "shop"])),
      `NAME   HOSTNAMES                               PARENTS     ACCEPTED   AGE
api    <none>                                  main:http   True       <age>
web    shop.example.com,www.shop.example.com   main        True       <age>
`,
    );
    const json = JSON.parse(await ok(["gateway-api", "httproutes", "-A", "-o", "json"]));
    assert.equal(json.kind, "List");
    assert.deepEqual(json.items.map((o: KubeObject) => o.metadata?.name), ["api", "web"]);
    assert.equal(json.items[0].apiVersion, "gateway.networking.k8s.io/v1");
    const yaml = parseYaml(await ok(["gateway-api", "gw", "main", "-n", "shop", "-o", "yaml"]));
    assert.equal(yaml.kind, "Gateway");
    assert.equal(yaml.metadata.managedFields, undefined);
    const empty = await edgectl(["gateway-api", "hr"]);
    assert.deepEqual([empty.code, empty.stdout, empty.stderr], [
      0,
      "",
      "No resources found in default namespace.\n",
    ]);
    const missing = await edgectl(["gateway-api", "gw", "nope", "-n", "shop"]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /^error: .*"nope" not found/);
  });

  test("describe-gateway prints the kubectl describe layout", async () => {
    const out = await ok(["gateway-api", "describe-gateway", "main", "-n", "shop"]);
    assert.match(out, /^Name:\s+main\nNamespace:\s+shop\n/);
    assert.match(out, /^API Version:\s+gateway\.networking\.k8s\.io\/v1$/m);
    assert.match(out, /^Kind:\s+Gateway$/m);
    assert.match(out, /^\s+Gateway Class Name:\s+edge$/m);
    assert.match(out, /^\s+Hostname:\s+shop\.example\.com$/m);
    assert.match(out, /^Events:\s+<none>$/m);
  });

  test("conformance (live): the proxy's class, its features, its gateways and routes", async () => {
    const out = await ok(["gateway-api", "conformance"]);
    assert.equal(
      out,
      `GatewayClasses of controller edgeproxy.io/gateway-controller:
  edge
    Accepted: True (Accepted)
    SupportedVersion: True (SupportedVersion)
    Supported features: Gateway, HTTPRoute, HTTPRouteHostRewrite

Gateways:
NAMESPACE   NAME   CLASS   ACCEPTED   PROGRAMMED
shop        main   edge    True       True

HTTPRoutes:
NAMESPACE   NAME   PARENTS     ACCEPTED   RESOLVEDREFS
shop        api    main:http   True       False
shop        web    main        True       True
`,
    );
    // The contract's spelling is the same command.
    assert.equal(await ok(["conformance"]), out);
    const json = JSON.parse(await ok(["gateway-api", "conformance", "-o", "json"]));
    assert.deepEqual(
      json.gatewayClasses.map((c: { name: string; accepted: boolean }) => [c.name, c.accepted]),
      [
        ["edge", true],
      ],
    );
    // Another controller has no accepted class here (the CRD's default status says Pending): exit 1,
    // after printing what it found.
    const other = await edgectl([
      "gateway-api",
      "conformance",
      "--controller-name",
      "example.com/other-controller",
    ]);
    assert.equal(other.code, 1);
    assert.match(
      other.stdout,
      /^ {2}other\n {4}Accepted: Unknown \(Pending\)\n {4}Supported features: <none>$/m,
    );
    assert.equal(
      other.stderr,
      "error: no GatewayClass of controller example.com/other-controller is Accepted\n",
    );
  });

  test("conformance -f validates and shows a ConformanceReport", async () => {
    assert.equal(
      await ok(["gateway-api", "conformance", "-f", REPORT]),
      `Implementation:  edgeproxy/edgeproxy v0.9.0 (https://edgeproxy.example)
Gateway API:     v1.4.0, standard channel, mode default
Date:            2026-11-20T09:30:00Z
Contact:         @edgeproxy/maintainers

PROFILE        CORE      PASSED   SKIPPED   FAILED   EXTENDED   FEATURES
GATEWAY-HTTP   success   33       0         0        partial    3/4
GATEWAY-GRPC   failure   11       0         1        <none>     <none>

GATEWAY-HTTP:
  Supported features:
    HTTPRouteHostRewrite
    HTTPRouteMethodMatching
    HTTPRouteQueryParamMatching
  Unsupported features:
    HTTPRouteBackendProtocolH2C
  Skipped extended tests:
    HTTPRouteBackendProtocolH2C
    HTTPRouteBackendProtocolWebSocket
  Summary: Core tests succeeded. Extended tests partially succeeded with 2 test skips.
`,
    );
    const doc = parseYaml(readFileSync(REPORT, "utf8"));
    assert.deepEqual(JSON.parse(await ok(["gateway-api", "conformance", "-f", REPORT, "-o", "json"])), doc);

    const broken = structuredClone(doc);
    broken.kind = "Report";
    broken.date = "yesterday";
    broken.profiles[0].core.result = "success";
    broken.profiles[0].core.statistics.Failed = 2;
    delete broken.implementation.url;
    const path = join(work, "broken.yaml");
    await writeFile(path, toYaml(broken));
    const r = await edgectl(["gateway-api", "conformance", "-f", path]);
    assert.equal(r.code, 1);
    assert.equal(r.stdout, "");
    assert.equal(
      r.stderr,
      `error: ${path} is not a valid ConformanceReport:
  kind: must be ConformanceReport, not "Report"
  date: must be an RFC 3339 timestamp, not "yesterday"
  implementation.url: required string
  profiles[0].core.result: success contradicts 2 failed and 0 skipped tests
  profiles[0].core.result: success contradicts 2 failed tests
`,
    );
    const absent = await edgectl(["gateway-api", "conformance", "-f", join(work, "absent.yaml")]);
    assert.deepEqual([absent.code, absent.stderr], [
      1,
      `error: ${join(work, "absent.yaml")}: no such file\n`,
    ]);
  });

  test("help has examples; an unknown subcommand is a usage error", async () => {
    for (const sub of ["gatewayclasses", "gateways", "httproutes", "describe-gateway", "conformance"]) {
      assert.match(await ok(["gateway-api", sub, "--help"]), /Examples:/, sub);
    }
    assert.equal((await edgectl(["gateway-api", "tlsroutes"])).code, 2);
  });
});
