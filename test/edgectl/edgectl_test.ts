/**
 * dist/edgectl against a real kube-apiserver (one per file): install the CRDs, apply a fixture with
 * every kind, get each kind by every alias in every output format, describe, delete, and the errors
 * users see (unknown type, missing object, missing kubeconfig, unreachable server, RBAC refusal).
 * Tables are compared with expected text; AGE, the only value that depends on the clock, is checked
 * against kubectl's formats and then masked.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { after, before, describe, test } from "node:test";
import { parse as parseYaml } from "yaml";
import { formatTable } from "../../internal/cli/mod.ts";
import { freePort } from "../harness/ports.ts";
import { KubeClient } from "../../internal/k8s/mod.ts";
import { RESOURCE_TYPES } from "../../internal/edgeproxy/resources.ts";
import { ROOT, runBinary } from "../harness/binary.ts";
import { type KubeApiServer, startKubeApiServer } from "../harness/k8s.ts";
import { maskAge } from "./_tables.ts";

const FIXTURE = join(ROOT, "test/edgectl/fixtures/all-kinds.yaml");
const EXTRA = join(ROOT, "test/edgectl/fixtures/extra");
const KUBECTL = "/usr/bin/kubectl";
const execFileAsync = promisify(execFile);

let k8s: KubeApiServer;
let admin: KubeClient;
let work: string;

function edgectl(args: string[], options: { env?: Record<string, string>; input?: string } = {}) {
  return runBinary("edgectl", args, {
    env: { KUBECONFIG: k8s.kubeconfigPath, ...options.env },
    cwd: work,
    ...(options.input === undefined ? {} : { input: options.input }),
  });
}

/** Runs edgectl and expects exit 0 and an empty stderr. */
async function ok(args: string[], options: Parameters<typeof edgectl>[1] = {}): Promise<string> {
  const r = await edgectl(args, options);
  assert.equal(r.code, 0, `edgectl ${args.join(" ")}: ${r.stderr}`);
  assert.equal(r.stderr, "", `edgectl ${args.join(" ")}`);
  return r.stdout;
}

/** A table with each row's AGE (the last column) checked and replaced by "<age>". */

/** Sets an object's status through the status subresource, as the controller would. */
async function setStatus(
  plural: string,
  name: string,
  status: Record<string, unknown>,
  namespace = "default",
) {
  await admin.request({
    method: "PATCH",
    path: `/apis/edgeproxy.io/v1alpha1/namespaces/${namespace}/${plural}/${name}/status`,
    body: { status },
    contentType: "application/merge-patch+json",
  });
}

const condition = (status: string) => ({
  type: "Ready",
  status,
  reason: status === "True" ? "Programmed" : "Pending",
  message: status === "True" ? "configuration accepted by 3 agents" : "waiting for agents",
  lastTransitionTime: "2026-11-01T10:00:00Z",
});

/** The expected table of each type for `get <alias>` in namespace default, AGE masked. */
const TABLES: Record<string, string> = {
  ProxyGateway: `
NAME   VIP      LISTENERS   READY   AGE
main   public   2           False   <age>`,
  ProxyRoute: `
NAME   HOSTNAMES                     RULES   READY   AGE
web    example.com,www.example.com   2       True    <age>`,
  ProxyBackend: `
NAME   SERVICE    LB POLICY    ENDPOINTS   READY   AGE
web    web:8080   RoundRobin   3           True    <age>`,
  ProxyVIP: `
NAME     VIP               MODE   READY    AGE
public   203.0.113.10/32   L2     <none>   <age>`,
  ProxyPolicy: `
NAME        TYPE         TARGET              AGE
ratelimit   RateLimit    ProxyRoute/web      <age>
auth        WASMPlugin   ProxyGateway/main   <age>`,
  TCPRoute: `
NAME       READY    AGE
postgres   <none>   <age>`,
  TLSRoute: `
NAME          READY    AGE
passthrough   <none>   <age>`,
  GRPCRoute: `
NAME        READY    AGE
inventory   <none>   <age>`,
  IPPool: `
NAME     READY    AGE
pool-a   <none>   <age>`,
  WASMPlugin: `
NAME   TYPE         TARGET              AGE
auth   WASMPlugin   ProxyGateway/main   <age>`,
  Certificate: `
NAME          READY    AGE
example-com   <none>   <age>`,
  ProxyWANLink: `
NAME      SITE   ROLE      PROVIDER    LATENCY   LOSS    HEALTHY   AGE
hq-mpls   hq     primary   acme-mpls   12ms      0.25%   true      <age>`,
  ProxyWANPolicy: `
NAME        STRATEGY         READY    AGE
steer-web   lowest-latency   <none>   <age>`,
  ProxyFederation: `
NAME     FEDERATION ID   LOCAL MEMBER   PHASE    AGE
global   fed-prod        eu-west        <none>   <age>`,
  ProxyCluster: `
NAME      REGION      FEDERATION   AGENTS   READY    AGE
eu-west   eu-west-1   global       <none>   <none>   <age>`,
};

/** Names listed per type in namespace default (policies list the WASM plugin too). */
function expectedNames(kind: string): string[] {
  return [...TABLES[kind]!.trim().split("\n").slice(1).map((line) => line.split(/\s+/)[0]!)];
}

/** Runs jobs a few at a time: enough to keep the test short, few enough for a 2-core machine. */
async function inParallel<T>(jobs: (() => Promise<T>)[], width = 4): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < jobs.length) {
      const i = next++;
      results[i] = await jobs[i]!();
    }
  }));
  return results;
}

describe("edgectl against kube-apiserver", () => {
  before(async () => {
    k8s = await startKubeApiServer();
    admin = KubeClient.fromKubeconfig({ path: k8s.kubeconfigPath });
    work = await mkdtemp(join(tmpdir(), "edgectl-test-"));
  });

  after(async () => {
    admin?.close();
    await k8s?.stop();
    if (work) await rm(work, { recursive: true, force: true });
  });

  test("before the CRDs are installed, get says how to install them", async () => {
    const r = await edgectl(["get", "gateways"]);
    assert.equal(r.code, 1);
    assert.equal(
      r.stderr,
      "error: the server does not serve ProxyGateway (edgeproxy.io/v1alpha1): install the CRDs with " +
        "`edgectl install-crds`\n",
    );
  });

  test("install-crds creates every CRD, waits until established, and is idempotent", async () => {
    const first = await ok(["install-crds"]);
    const lines = first.trimEnd().split("\n");
    assert.match(lines[0]!, /^NAME +KIND +RESULT +ESTABLISHED$/);
    assert.equal(lines.length, 1 + RESOURCE_TYPES.length);
    for (const type of RESOURCE_TYPES) {
      assert.match(first, new RegExp(`^${type.plural}\\.edgeproxy\\.io +${type.kind} +created +True$`, "m"));
    }
    const again = JSON.parse(await ok(["install-crds", "-o", "json"]));
    assert.deepEqual(
      again.crds.map((c: { action: string; established: boolean }) => [c.action, c.established]),
      RESOURCE_TYPES.map(() => ["unchanged", true]),
    );
  });

  test("apply -f creates every object of a multi-document file, then finds them unchanged", async () => {
    const created = await ok(["apply", "-f", FIXTURE]);
    assert.equal(
      created,
      [
        "namespace/shop created",
        "proxyvip.edgeproxy.io/public created",
        "proxygateway.edgeproxy.io/main created",
        "proxyroute.edgeproxy.io/web created",
        "proxybackend.edgeproxy.io/web created",
        "proxypolicy.edgeproxy.io/ratelimit created",
        "tcproute.edgeproxy.io/postgres created",
        "tlsroute.edgeproxy.io/passthrough created",
        "grpcroute.edgeproxy.io/inventory created",
        "ippool.edgeproxy.io/pool-a created",
        "wasmplugin.edgeproxy.io/auth created",
        "certificate.edgeproxy.io/example-com created",
        "proxywanlink.edgeproxy.io/hq-mpls created",
        "proxywanpolicy.edgeproxy.io/steer-web created",
        "proxyfederation.edgeproxy.io/global created",
        "proxycluster.edgeproxy.io/eu-west created",
        "proxygateway.edgeproxy.io/shop created",
        "proxyroute.edgeproxy.io/storefront created",
        "",
      ].join("\n"),
    );
    const again = await ok(["apply", "-f", FIXTURE]);
    assert.equal(again.split("\n").filter((l) => l.endsWith(" unchanged")).length, 18, again);

    await setStatus("proxyroutes", "web", { observedGeneration: 1, conditions: [condition("True")] });
    await setStatus("proxybackends", "web", { endpoints: 3, conditions: [condition("True")] });
    await setStatus("proxygateways", "main", { conditions: [condition("False")] });
    await setStatus("proxywanlinks", "hq-mpls", { latencyMs: 12, lossPercent: 0.25, healthy: true });
  });

  test("get lists each kind by every alias, as the expected table", async () => {
    const jobs = RESOURCE_TYPES.flatMap((type) =>
      [...type.aliases, type.plural].map((alias) => async () => {
        const table = await ok(["get", alias]);
        assert.equal(maskAge(table), `${TABLES[type.kind]!.trim()}\n`, `get ${alias}`);
      })
    );
    await inParallel(jobs);
  });

  test("get -o json and -o yaml print one List document with the objects", async () => {
    const jobs = RESOURCE_TYPES.flatMap((type) =>
      type.aliases.flatMap((alias) =>
        (["json", "yaml"] as const).map((format) => async () => {
          const out = await ok(["get", alias, "-o", format]);
          const doc = format === "json" ? JSON.parse(out) : parseYaml(out);
          assert.equal(doc.apiVersion, "v1");
          assert.equal(doc.kind, "List");
          assert.deepEqual(doc.metadata, { resourceVersion: "" });
          assert.deepEqual(
            doc.items.map((o: { metadata: { name: string } }) => o.metadata.name),
            expectedNames(type.kind),
            `get ${alias} -o ${format}`,
          );
          for (const item of doc.items) {
            assert.equal(item.apiVersion, "edgeproxy.io/v1alpha1");
            assert.equal(item.metadata.managedFields, undefined);
          }
        })
      )
    );
    await inParallel(jobs);
  });

  test("get <type> <name> prints one object in each format", async () => {
    const jobs = RESOURCE_TYPES.map((type) => async () => {
      const name = expectedNames(type.kind)[0]!;
      const alias = type.aliases.at(-1)!;
      const table = await ok(["get", alias, name]);
      // The first row of the list's table, its columns as wide as this one row needs.
      const [headers, first] = TABLES[type.kind]!.trim().split("\n").map((line) => line.split(/\s{2,}/));
      assert.equal(maskAge(table), formatTable(headers!, [first!]));
      for (const format of ["json", "yaml"] as const) {
        const out = await ok(["get", alias, name, "-o", format]);
        const object = format === "json" ? JSON.parse(out) : parseYaml(out);
        assert.equal(object.kind, type.kind);
        assert.equal(object.metadata.name, name);
        assert.equal(object.metadata.namespace, "default");
      }
    });
    await inParallel(jobs);
    // A WASM plugin is found through the policies it is listed among.
    assert.equal(JSON.parse(await ok(["get", "policy", "auth", "-o", "json"])).kind, "WASMPlugin");
  });

  test("-A adds NAMESPACE and lists every namespace; -n and EDGECTL_NAMESPACE pick one", async () => {
    assert.equal(
      maskAge(await ok(["get", "gw", "-A"])),
      "NAMESPACE   NAME   VIP      LISTENERS   READY    AGE\n" +
        "default     main   public   2           False    <age>\n" +
        "shop        shop   <none>   1           <none>   <age>\n",
    );
    assert.equal(
      maskAge(await ok(["get", "routes", "--all-namespaces"])),
      "NAMESPACE   NAME         HOSTNAMES                     RULES   READY    AGE\n" +
        "default     web          example.com,www.example.com   2       True     <age>\n" +
        "shop        storefront   shop.example.com              1       <none>   <age>\n",
    );
    const expected =
      "NAME         HOSTNAMES          RULES   READY    AGE\nstorefront   shop.example.com   1       <none>   <age>\n";
    assert.equal(maskAge(await ok(["get", "rt", "-n", "shop"])), expected);
    assert.equal(maskAge(await ok(["get", "rt"], { env: { EDGECTL_NAMESPACE: "shop" } })), expected);
    assert.equal(maskAge(await ok(["-n", "shop", "get", "rt"])), expected);
  });

  test("EDGECTL_OUTPUT sets the format and -o overrides it", async () => {
    const json = await ok(["get", "vips"], { env: { EDGECTL_OUTPUT: "json" } });
    assert.equal(JSON.parse(json).kind, "List");
    const table = await ok(["get", "vips", "-o", "table"], { env: { EDGECTL_OUTPUT: "json" } });
    assert.match(table, /^NAME +VIP +MODE +READY +AGE\n/);
  });

  test("an empty namespace prints kubectl's message on stderr and exits 0", async () => {
    const r = await edgectl(["get", "gateways", "-n", "empty"]);
    assert.deepEqual(r, { code: 0, stdout: "", stderr: "No resources found in empty namespace.\n" });
    const json = await ok(["get", "gateways", "-n", "empty", "-o", "json"]);
    assert.deepEqual(JSON.parse(json), {
      apiVersion: "v1",
      items: [],
      kind: "List",
      metadata: { resourceVersion: "" },
    });
  });

  test("describe prints the kubectl layout with spec, status and events", async () => {
    const uid = JSON.parse(await ok(["get", "route", "web", "-o", "json"])).metadata.uid;
    const tenDaysAgo = new Date(Date.now() - 10 * 86400_000 - 3600_000).toISOString();
    await admin.request({
      method: "POST",
      path: "/api/v1/namespaces/default/events",
      body: {
        apiVersion: "v1",
        kind: "Event",
        metadata: { name: "web.programmed", namespace: "default" },
        involvedObject: {
          apiVersion: "edgeproxy.io/v1alpha1",
          kind: "ProxyRoute",
          name: "web",
          namespace: "default",
          uid,
        },
        type: "Normal",
        reason: "Programmed",
        message: "route programmed on 3 agents",
        source: { component: "edgeproxy-controller" },
        firstTimestamp: tenDaysAgo,
        lastTimestamp: tenDaysAgo,
        count: 1,
      },
    });
    const text = await ok(["describe", "route", "web"]);
    const masked = text
      .replace(/(Creation Timestamp: +)\S+/, "$1<time>")
      .replace(/(Resource Version: +)\S+/, "$1<rv>")
      .replace(/(UID: +)\S+/, "$1<uid>");
    assert.equal(
      masked,
      `Name:         web
Namespace:    default
Labels:       <none>
Annotations:  <none>
API Version:  edgeproxy.io/v1alpha1
Kind:         ProxyRoute
Metadata:
  Creation Timestamp:  <time>
  Generation:          1
  Resource Version:    <rv>
  UID:                 <uid>
Spec:
  Hostnames:
    example.com
    www.example.com
  Rules:
    Backend Ref:
      Name:  web
    Matches:
      Path:
        Type:   PathPrefix
        Value:  /
    Backend Ref:
      Name:  api
    Matches:
      Path:
        Type:   PathPrefix
        Value:  /api
Status:
  Conditions:
    Last Transition Time:  2026-11-01T10:00:00Z
    Message:               configuration accepted by 3 agents
    Reason:                Programmed
    Status:                True
    Type:                  Ready
  Observed Generation:     1
Events:
  Type    Reason      Age   From                  Message
  ----    ------      ----  ----                  -------
  Normal  Programmed  10d   edgeproxy-controller  route programmed on 3 agents
`,
    );
  });

  test(
    "describe matches kubectl describe for every object",
    async () => {
      const jobs = RESOURCE_TYPES.map((type) => async () => {
        const name = expectedNames(type.kind)[0]!;
        const ours = await ok(["describe", type.aliases[0]!, name]);
        const theirs = await runKubectl(["describe", `${type.plural}.edgeproxy.io`, name]);
        assert.equal(ours, theirs, `describe ${type.aliases[0]} ${name}`);
      });
      await inParallel(jobs, 2);
    },
  );

  test("apply reads directories and stdin, and --server-side applies on the server", async () => {
    assert.equal(
      await ok(["apply", "-f", EXTRA]),
      "proxybackend.edgeproxy.io/extra-backend created\nproxyroute.edgeproxy.io/extra-route created\n",
    );
    const changed = "apiVersion: edgeproxy.io/v1alpha1\nkind: ProxyRoute\nmetadata:\n  name: extra-route\n" +
      "spec:\n  hostnames: [extra.example.com, extra.example.org]\n";
    assert.equal(
      await ok(["apply", "-f", "-"], { input: changed }),
      "proxyroute.edgeproxy.io/extra-route configured\n",
    );
    assert.equal(
      await ok(["apply", "--server-side", "-f", join(EXTRA, "backend.json")]),
      "proxybackend.edgeproxy.io/extra-backend serverside-applied\n",
    );
    assert.match(await ok(["get", "rt", "extra-route"]), /extra\.example\.com,extra\.example\.org/);
  });

  test("apply reports the server's refusal per document and exits 1", async () => {
    const bad =
      "apiVersion: edgeproxy.io/v1alpha1\nkind: ProxyBackend\nmetadata:\n  name: broken\nspec:\n  lbPolicy: Fastest\n";
    const r = await edgectl(["apply", "-f", "-"], { input: bad });
    assert.equal(r.code, 1);
    assert.equal(r.stdout, "");
    assert.match(
      r.stderr,
      /^error: <stdin> \(document 1\): Error from server \(Invalid\): .*Unsupported value: "Fastest"/,
    );
  });

  test("delete by name, by file, and every object of comma-separated types with --all", async () => {
    assert.equal(
      await ok(["delete", "rt", "extra-route"]),
      'proxyroute.edgeproxy.io "extra-route" deleted\n',
    );
    assert.equal(
      await ok(["delete", "-f", join(EXTRA, "backend.json")]),
      'proxybackend.edgeproxy.io "extra-backend" deleted\n',
    );
    const r = await edgectl(["delete", "gw", "nope"]);
    assert.deepEqual(r, {
      code: 1,
      stdout: "",
      stderr: 'error: Error from server (NotFound): proxygateways.edgeproxy.io "nope" not found\n',
    });
    assert.equal(
      await ok(["delete", "gateways,routes", "--all", "-n", "shop"]),
      'proxygateway.edgeproxy.io "shop" deleted\nproxyroute.edgeproxy.io "storefront" deleted\n',
    );
    const none = await edgectl(["delete", "gateways,routes", "--all", "-n", "shop"]);
    assert.deepEqual(none, { code: 0, stdout: "", stderr: "No resources found\n" });
    const forced = await edgectl(["delete", "cert", "example-com", "--force", "--grace-period=0"]);
    assert.equal(forced.code, 0);
    assert.equal(forced.stdout, 'certificate.edgeproxy.io "example-com" force deleted\n');
    assert.match(forced.stderr, /^Warning: Immediate deletion does not wait/);
  });

  test("an unknown type is a usage error that suggests the nearest name", async () => {
    const r = await edgectl(["get", "gatways"]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^error: unknown resource type "gatways" \(did you mean "gateways"\?\)/);
    assert.match(r.stderr, /\nRun 'edgectl get --help' for usage\.\n$/);
  });

  test("a missing object exits 1 with the server's NotFound", async () => {
    const r = await edgectl(["describe", "backend", "nope"]);
    assert.deepEqual(r, {
      code: 1,
      stdout: "",
      stderr: 'error: Error from server (NotFound): proxybackends.edgeproxy.io "nope" not found\n',
    });
  });

  test("a missing kubeconfig, an unknown context and an unreachable server exit 1", async () => {
    const missing = await edgectl(["get", "gw", "--kubeconfig", join(work, "nope")]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /^error: .*nope.*does not exist\n$/);
    const context = await edgectl(["get", "gw"], { env: { EDGECTL_CONTEXT: "staging" } });
    assert.equal(context.code, 1);
    assert.match(context.stderr, /^error: .*"staging"/);

    const port = await freePort();
    const unreachable = join(work, "unreachable");
    const text = readFileSync(k8s.kubeconfigPath, "utf8").replace(
      /server: \S+/,
      `server: https://127.0.0.1:${port}`,
    );
    await writeFile(unreachable, text);
    const r = await edgectl(["version", "--kubeconfig", unreachable]);
    assert.equal(r.code, 1);
    assert.match(r.stdout, /^Client Version: v\d+\.\d+\.\d+\n$/);
    assert.match(
      r.stderr,
      new RegExp(`^error: unable to connect to the server at https://127\\.0\\.0\\.1:${port}: `),
    );
  });

  test("version prints the client and Kubernetes versions", async () => {
    assert.match(
      await ok(["version"]),
      /^Client Version: v\d+\.\d+\.\d+\nKubernetes Version: v1\.\d+\.\d+\n$/,
    );
    const json = JSON.parse(await ok(["version", "-o", "json"]));
    assert.deepEqual(Object.keys(json), ["clientVersion", "kubernetesVersion"]);
    assert.equal(
      await ok(["version", "--client", "--kubeconfig", join(work, "nope")]),
      `Client Version: ${json.clientVersion}\n`,
    );
  });

  test("a user without access gets the server's Forbidden reason and exit 1", async () => {
    const viewer = await k8s.userKubeconfig("viewer");
    const r = await edgectl(["get", "routes"], { env: { KUBECONFIG: viewer } });
    assert.equal(r.code, 1);
    assert.equal(r.stdout, "");
    assert.match(
      r.stderr,
      /^error: Error from server \(Forbidden\): proxyroutes\.edgeproxy\.io is forbidden: User "viewer" cannot list resource "proxyroutes" in API group "edgeproxy\.io" in the namespace "default"\n$/,
    );
  });
});

async function runKubectl(args: string[]): Promise<string> {
  const { stdout } = await execFileAsync(KUBECTL, args, {
    env: { ...process.env, KUBECONFIG: k8s.kubeconfigPath },
  });
  return stdout;
}
