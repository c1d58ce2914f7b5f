/**
 * dist/edgectl agent, agents, cache, federation and describe cluster against a real kube-apiserver
 * and test agents serving AgentService over gRPC on 127.0.0.1 (test/edgectl/agent/agent_server.ts).
 * Agent Pods carry the edgeproxy.io/agent-address annotation pointing at those agents, since Pod IPs
 * here are only written into status; their IPs still show in `agents list -o wide`.
 * Tables are compared as text with the AGE cells (last column) masked.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { parse as parseYaml } from "yaml";
import { freePort } from "../harness/ports.ts";
import { KubeClient } from "../../internal/k8s/mod.ts";
import { runBinary } from "../harness/binary.ts";
import { type KubeApiServer, startKubeApiServer } from "../harness/k8s.ts";
import { startTestAgent, type TestAgent } from "./agent/agent_server.ts";
import { maskAge } from "./_tables.ts";

const NS = "edge-system";
const BROKEN = "edge-broken";
let k8s: KubeApiServer;
let admin: KubeClient;
let agentA: TestAgent;
let agentB: TestAgent;
let slow: TestAgent;
let deadAddr: string;

function edgectl(args: string[], env: Record<string, string> = {}) {
  return runBinary("edgectl", args, { env: { KUBECONFIG: k8s.kubeconfigPath, ...env } });
}

async function ok(args: string[], env: Record<string, string> = {}): Promise<string> {
  const r = await edgectl(args, env);
  assert.equal(r.code, 0, `edgectl ${args.join(" ")}: ${r.stderr}`);
  return r.stdout;
}

/** AGE (the last column) varies with the run's timing: masked. */

function withAddresses(text: string): string {
  return text.replaceAll(agentA.address, "<addr-a>").replaceAll(agentB.address, "<addr-b>");
}

const PROXY_AGENT = { "app.kubernetes.io/name": "edgeproxy", "app.kubernetes.io/component": "agent" };

async function createAgentPod(
  namespace: string,
  name: string,
  node: string,
  ip: string,
  address: string | undefined,
  restarts = 0,
) {
  await admin.request({
    method: "POST",
    path: `/api/v1/namespaces/${namespace}/pods`,
    body: {
      metadata: {
        name,
        labels: PROXY_AGENT,
        ...(address ? { annotations: { "edgeproxy.io/agent-address": address } } : {}),
      },
      spec: { nodeName: node, containers: [{ name: "agent", image: "example.com/edgeproxy-agent:0.9.1" }] },
    },
  });
  await admin.request({
    method: "PATCH",
    path: `/api/v1/namespaces/${namespace}/pods/${name}/status`,
    contentType: "application/merge-patch+json",
    body: {
      status: {
        phase: "Running",
        podIP: ip,
        podIPs: [{ ip }],
        containerStatuses: [{
          name: "agent",
          ready: true,
          restartCount: restarts,
          image: "example.com/edgeproxy-agent:0.9.1",
          imageID: "",
          state: { running: { startedAt: new Date().toISOString().replace(/\.\d+Z$/, "Z") } },
        }],
      },
    },
  });
}

const TEN_DAYS_AGO = new Date(Date.now() - 10 * 86_400_000).toISOString().replace(/\.\d+Z$/, "Z");

before(async () => {
  [agentA, agentB, slow] = await Promise.all([
    startTestAgent({
      node: "worker-1",
      cache: [
        { namespace: "shop", route: "web", hostname: "shop.example.com", size: 4096 },
        { namespace: "shop", route: "web", hostname: "www.example.com", size: 1024 },
        { namespace: "blog", route: "posts", hostname: "blog.example.org", size: 2048 },
      ],
    }),
    startTestAgent({
      node: "worker-2",
      cache: [{ namespace: "shop", route: "api", hostname: "api.example.com", size: 512 }],
    }),
    startTestAgent({ node: "worker-4", delayMs: 5000 }),
  ]);
  deadAddr = `127.0.0.1:${await freePort()}`; // nothing listens there
  k8s = await startKubeApiServer();
  admin = KubeClient.fromKubeconfig({ path: k8s.kubeconfigPath });
  for (const name of [NS, BROKEN, "shop"]) {
    await admin.request({ method: "POST", path: "/api/v1/namespaces", body: { metadata: { name } } });
    // No controller-manager here to create it; Pod admission needs it.
    await admin.request({
      method: "POST",
      path: `/api/v1/namespaces/${name}/serviceaccounts`,
      body: { metadata: { name: "default" } },
    });
  }
  await ok(["install-crds"]);
  await createAgentPod(NS, "edge-agent-a", "worker-1", "10.244.1.7", agentA.address);
  await createAgentPod(NS, "edge-agent-b", "worker-2", "10.244.2.9", agentB.address, 3);
  await admin.request({
    method: "POST",
    path: `/api/v1/namespaces/${NS}/pods`,
    body: {
      metadata: { name: "bystander", labels: { app: "other" } },
      spec: { containers: [{ name: "x", image: "x" }] },
    },
  });
  await createAgentPod(BROKEN, "edge-agent-dead", "worker-3", "10.244.3.2", deadAddr);
  await createAgentPod(BROKEN, "edge-agent-slow", "worker-4", "10.244.4.2", slow.address);
});

after(async () => {
  admin?.close();
  await k8s?.stop();
  await Promise.all([agentA?.close(), agentB?.close(), slow?.close()]);
});

describe("agents", () => {
  test("agents list: the agent Pods only, as kubectl prints Pods", async () => {
    const out = await ok(["agents", "list", "--proxy-namespace", NS]);
    assert.equal(
      maskAge(out),
      [
        "NAME           NODE       STATUS    READY   RESTARTS   AGE",
        "edge-agent-a   worker-1   Running   1/1     0          <age>",
        "edge-agent-b   worker-2   Running   1/1     3          <age>",
        "",
      ].join("\n"),
    );
  });

  test("agents list -o wide adds IP, gRPC address and image; json is one List", async () => {
    const wide = await ok(["agents", "list", "-o", "wide"], { EDGECTL_PROXY_NAMESPACE: NS });
    const lines = wide.trimEnd().split("\n");
    assert.match(lines[0]!, /^NAME +NODE +STATUS +READY +RESTARTS +AGE +IP +AGENT ADDRESS +IMAGE$/);
    assert.match(
      lines[1]!,
      new RegExp(
        `^edge-agent-a .* 10\\.244\\.1\\.7 +${agentA.address} +example\\.com/edgeproxy-agent:0\\.9\\.1$`,
      ),
    );
    const doc = JSON.parse(await ok(["agents", "list", "--proxy-namespace", NS, "-o", "json"]));
    assert.equal(doc.kind, "List");
    assert.deepEqual(doc.items.map((p: { metadata: { name: string } }) => p.metadata.name), [
      "edge-agent-a",
      "edge-agent-b",
    ]);
  });

  test("EDGECTL_CONTEXT selects the kubeconfig context: an unknown one is exit 1", async () => {
    const r = await edgectl(["agents", "list", "--proxy-namespace", NS], { EDGECTL_CONTEXT: "staging" });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^error: .*context "staging"/);
  });

  test("agents list with no agents: kubectl's message on stderr, exit 0", async () => {
    const r = await edgectl(["agents", "list", "--proxy-namespace", "shop"]);
    assert.equal(r.code, 0);
    assert.equal(r.stdout, "");
    assert.equal(r.stderr, "No agents found in shop namespace.\n");
  });

  test("agents config: every agent's applied config version side by side", async () => {
    const out = await ok(["agents", "config", "--proxy-namespace", NS]);
    assert.equal(
      out,
      [
        "NAME           NODE       CONFIG VERSION   APPLIED AT             GATEWAYS   ROUTES   BACKENDS   VIPS",
        "edge-agent-a   worker-1   42               2026-11-25T10:00:00Z   1          1        2          1",
        "edge-agent-b   worker-2   42               2026-11-25T10:00:00Z   1          1        2          1",
        "",
      ].join("\n"),
    );
  });

  test("agents config with a dead and a slow agent: both named on stderr, exit 1", async () => {
    const r = await edgectl(["agents", "config", "--proxy-namespace", BROKEN, "--timeout", "500ms"]);
    assert.equal(r.code, 1);
    assert.equal(r.stdout, "");
    const lines = r.stderr.trimEnd().split("\n");
    assert.equal(lines.length, 3, r.stderr);
    assert.equal(lines[0], "No agent answered.");
    assert.match(lines[1]!, new RegExp(`^error: agent edge-agent-dead \\(${deadAddr}\\) is unreachable: `));
    assert.equal(
      lines[2],
      `error: agent edge-agent-slow (${slow.address}) did not answer within 500ms (deadline exceeded)`,
    );
  });

  test("agents describe: the Pod and what the agent reports", async () => {
    const out = await ok(["agents", "describe", "worker-2", "--proxy-namespace", NS]);
    assert.match(
      out,
      /^Name: +edge-agent-b\nNamespace: +edge-system\nNode: +worker-2\nStatus: +Running\nIP: +10\.244\.2\.9\n/,
    );
    assert.match(out, /\nRestarts: +3\n/);
    assert.match(out, /\nAgent:\n {2}Version: +v0\.9\.1\n {2}Config Version: +42\n/);
    const broken = await ok(["agents", "describe", "--proxy-namespace", BROKEN, "--timeout", "300ms"]);
    assert.match(
      broken,
      /Name: +edge-agent-dead[\s\S]*Agent: +<error: agent edge-agent-dead .* is unreachable/,
    );
    assert.match(broken, /Name: +edge-agent-slow[\s\S]*Agent: +<error: .* did not answer within 300ms/);
  });
});

describe("agent", () => {
  test("agent config by node name: describe-style text", async () => {
    const out = await ok(["agent", "config", "worker-1", "--proxy-namespace", NS]);
    assert.equal(
      withAddresses(out),
      [
        "Agent:           edge-agent-a",
        "Node:            worker-1",
        "Address:         <addr-a>",
        "Agent Version:   v0.9.1",
        "Config Version:  42",
        "Applied At:      2026-11-25T10:00:00Z",
        "Backends:        2",
        "VIPs:            1",
        "Gateways:",
        "  NAMESPACE   NAME   LISTENERS",
        "  shop        main   https/HTTPS:443",
        "Routes:",
        "  NAMESPACE   NAME   HOSTNAMES          RULES",
        "  shop        web    shop.example.com   2",
        "",
      ].join("\n"),
    );
  });

  test("agent backends by Pod name: table, JSON and YAML", async () => {
    const table = await ok(["agent", "backends", "edge-agent-b", "--proxy-namespace", NS]);
    assert.equal(
      table,
      [
        "NAMESPACE   NAME   LB POLICY    ENDPOINTS                     HEALTHY",
        "shop        web    RoundRobin   10.1.0.4:8080,10.1.0.5:8080   1/2",
        "shop        api    LeastConn    10.1.0.9:9000                 1/1",
        "",
      ].join("\n"),
    );
    const json = JSON.parse(
      await ok(["agent", "backends", "edge-agent-b", "--proxy-namespace", NS, "-o", "json"]),
    );
    assert.deepEqual(json.agent, { name: "edge-agent-b", node: "worker-2", address: agentB.address });
    assert.deepEqual(json.backends[0].endpoints[1], { address: "10.1.0.5", port: 8080, healthy: false });
    const yaml = parseYaml(
      await ok(["agent", "backends", "edge-agent-b", "--proxy-namespace", NS, "-o", "yaml"]),
    );
    assert.deepEqual(yaml, json);
  });

  test("agent vips: table; EDGECTL_OUTPUT picks JSON", async () => {
    assert.equal(
      await ok(["agent", "vips", "worker-1", "--proxy-namespace", NS]),
      [
        "NAME     ADDRESS      MODE   STATE    INTERFACE",
        "public   192.0.2.10   L2     Active   eth0",
        "",
      ].join("\n"),
    );
    const doc = JSON.parse(
      await ok(["agent", "vips", "worker-1", "--proxy-namespace", NS], { EDGECTL_OUTPUT: "json" }),
    );
    assert.equal(doc.vips[0].address, "192.0.2.10");
  });

  test("--agent-addr dials the address without Kubernetes", async () => {
    const r = await runBinary("edgectl", ["agent", "vips", "anything", "--agent-addr", agentA.address], {
      env: { KUBECONFIG: "/nonexistent/kubeconfig" },
    });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /public +192\.0\.2\.10/);
  });

  test("a dead agent: one line naming the agent and the address, exit 1", async () => {
    const r = await edgectl(["agent", "config", "edge-agent-dead", "--proxy-namespace", BROKEN]);
    assert.equal(r.code, 1);
    assert.equal(r.stdout, "");
    assert.match(
      r.stderr,
      new RegExp(`^error: agent edge-agent-dead \\(${deadAddr}\\) is unreachable: [^\\n]+\\n$`),
    );
  });

  test("deadline exceeded: --timeout bounds the call", async () => {
    const started = Date.now();
    const r = await edgectl([
      "agent",
      "backends",
      "worker-4",
      "--proxy-namespace",
      BROKEN,
      "--timeout",
      "400ms",
    ]);
    assert.equal(r.code, 1);
    assert.equal(
      r.stderr,
      `error: agent edge-agent-slow (${slow.address}) did not answer within 400ms (deadline exceeded)\n`,
    );
    assert.ok(Date.now() - started < 4000, "the command waited for the slow agent");
  });

  test("unknown agent, bad --timeout, unknown output: clear errors and exit codes", async () => {
    const missing = await edgectl(["agent", "config", "nope", "--proxy-namespace", NS]);
    assert.equal(missing.code, 1);
    assert.match(
      missing.stderr,
      /^error: agent "nope" not found: no Pod or node of that name among the agent Pods/,
    );
    const badTimeout = await edgectl(["agent", "config", "worker-1", "--timeout", "soon"]);
    assert.equal(badTimeout.code, 2);
    assert.match(badTimeout.stderr, /--timeout: "soon" is not a positive duration/);
    const badOutput = await edgectl(["agent", "vips", "worker-1", "-o", "xml"]);
    assert.equal(badOutput.code, 2);
  });
});

describe("cache", () => {
  test("cache stats over every agent, -n counting one namespace's routes", async () => {
    assert.equal(
      await ok(["cache", "stats", "--proxy-namespace", NS]),
      [
        "AGENT          NODE       ENTRIES   SIZE   MAX SIZE   HITS   MISSES   HIT RATIO   EVICTIONS",
        "edge-agent-a   worker-1   3         7KiB   1MiB       120    30       80.0%       2",
        "edge-agent-b   worker-2   1         512B   1MiB       120    30       80.0%       2",
        "",
      ].join("\n"),
    );
    const doc = JSON.parse(await ok(["cache", "stats", "--proxy-namespace", NS, "-n", "blog", "-o", "json"]));
    assert.deepEqual(doc.items.map((i: { stats: { entries: string } }) => i.stats.entries), ["1", "0"]);
    assert.equal(doc.items[0].namespace, "blog");
  });

  test("cache purge needs exactly one selector", async () => {
    for (const args of [[], ["--all", "--route", "web"], ["--hostname", "a", "--pattern", "b"]]) {
      const r = await edgectl(["cache", "purge", "--proxy-namespace", NS, ...args]);
      assert.equal(r.code, 2, args.join(" "));
      assert.equal(agentA.cache.length, 3, "a refused purge changed nothing");
    }
  });

  test("cache purge --route, --hostname and --all empty the agents' caches", async () => {
    assert.equal(
      await ok(["cache", "purge", "--route", "web", "-n", "shop", "--proxy-namespace", NS]),
      ["AGENT          NODE       PURGED", "edge-agent-a   worker-1   2", "edge-agent-b   worker-2   0", ""]
        .join("\n"),
    );
    assert.deepEqual(agentA.cache.map((e) => e.route), ["posts"]);
    const host = JSON.parse(
      await ok(["cache", "purge", "--hostname", "*.example.com", "--proxy-namespace", NS, "-o", "json"]),
    );
    assert.deepEqual(host.items.map((i: { purged: string }) => i.purged), ["0", "1"]);
    assert.deepEqual(host.items[0].purge, { hostname: "*.example.com" });
    // --route without -n: the working namespace, here EDGECTL_NAMESPACE's.
    const byEnv = await ok(["cache", "purge", "--route", "posts", "--proxy-namespace", NS, "-o", "json"], {
      EDGECTL_NAMESPACE: "blog",
    });
    assert.deepEqual(JSON.parse(byEnv).items.map((i: { purged: string }) => i.purged), ["1", "0"]);
    assert.deepEqual(JSON.parse(byEnv).items[0].purge, { route: "blog/posts" });
    agentA.cache.push({ namespace: "shop", route: "web", hostname: "shop.example.com", size: 1 });
    await ok(["cache", "purge", "--all", "--agent-addr", agentA.address]);
    assert.equal(agentA.cache.length, 0);
  });

  test("cache stats with a dead agent: exit 1 naming it", async () => {
    const r = await edgectl(["cache", "stats", "--agent-addr", deadAddr]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, new RegExp(`error: agent ${deadAddr} \\(${deadAddr}\\) is unreachable`));
  });
});

describe("federation and clusters", () => {
  before(async () => {
    const manifest = `
apiVersion: edgeproxy.io/v1alpha1
kind: ProxyFederation
metadata:
  name: global
  namespace: ${NS}
spec:
  federationId: fed-prod
  localMember: {name: eu-west, endpoint: "fed.eu-west.example.com:7443", region: eu-west-1}
  members:
    - {name: us-east, endpoint: "fed.us-east.example.com:7443", region: us-east-1}
    - {name: ap-south, endpoint: "fed.ap-south.example.com:7443", region: ap-south-1}
  sync: {interval: 30s, timeout: 10s, batchSize: 100, compression: true}
  conflictResolution: {strategy: LastWriterWins, vectorClocks: true}
---
apiVersion: edgeproxy.io/v1alpha1
kind: ProxyCluster
metadata:
  name: us-east
  namespace: ${NS}
spec:
  endpoint: "fed.us-east.example.com:7443"
  region: us-east-1
  federationRef: {name: global}
`;
    const r = await runBinary("edgectl", ["apply", "-f", "-"], {
      env: { KUBECONFIG: k8s.kubeconfigPath },
      input: manifest,
    });
    assert.equal(r.code, 0, r.stderr);
    await admin.request({
      method: "PATCH",
      path: `/apis/edgeproxy.io/v1alpha1/namespaces/${NS}/proxyfederations/global/status`,
      contentType: "application/merge-patch+json",
      body: {
        status: {
          phase: "Degraded",
          localVectorClock: { "eu-west": 17, "us-east": 12, "ap-south": 9 },
          members: [
            {
              name: "us-east",
              healthy: true,
              lastSeen: TEN_DAYS_AGO,
              syncLag: "1s",
              agents: 4,
              vectorClock: { "us-east": 12 },
            },
            {
              name: "ap-south",
              healthy: false,
              lastSeen: TEN_DAYS_AGO,
              syncLag: "5m",
              agents: 2,
              error: "connection refused",
            },
          ],
          conflicts: [{
            kind: "ProxyRoute",
            namespace: "shop",
            name: "web",
            members: ["eu-west", "us-east"],
            detectedAt: TEN_DAYS_AGO,
            resolution: "LastWriterWins",
            winner: "us-east",
          }],
          conditions: [{
            type: "Ready",
            status: "False",
            reason: "PeerUnreachable",
            message: "ap-south unreachable",
            lastTransitionTime: TEN_DAYS_AGO,
          }],
        },
      },
    });
    await admin.request({
      method: "PATCH",
      path: `/apis/edgeproxy.io/v1alpha1/namespaces/${NS}/proxyclusters/us-east/status`,
      contentType: "application/merge-patch+json",
      body: {
        status: {
          agents: { total: 4, ready: 3 },
          conditions: [{
            type: "Ready",
            status: "True",
            reason: "Heartbeat",
            message: "",
            lastTransitionTime: TEN_DAYS_AGO,
          }],
        },
      },
    });
  });

  test("federation status lists, -A adds NAMESPACE; fed is an alias", async () => {
    assert.equal(
      maskAge(await ok(["federation", "status", "-n", NS])),
      [
        "NAME     FEDERATION ID   LOCAL MEMBER   PHASE      AGE",
        "global   fed-prod        eu-west        Degraded   <age>",
        "",
      ].join("\n"),
    );
    assert.equal(
      maskAge(await ok(["fed", "status", "-A"])),
      [
        "NAMESPACE     NAME     FEDERATION ID   LOCAL MEMBER   PHASE      AGE",
        "edge-system   global   fed-prod        eu-west        Degraded   <age>",
        "",
      ].join("\n"),
    );
    const empty = await edgectl(["federation", "status", "-n", "shop"]);
    assert.equal(empty.code, 0);
    assert.equal(empty.stderr, "No resources found in shop namespace.\n");
  });

  test("federation status NAME: the detail sections", async () => {
    const out = await ok(["federation", "status", "global"], { EDGECTL_NAMESPACE: NS });
    assert.match(
      out,
      /^Name: +global\nNamespace: +edge-system\nFederation ID: +fed-prod\nPhase: +Degraded\n/,
    );
    assert.ok(
      out.includes("Local Member:\n  Name:      eu-west\n  Endpoint:  fed.eu-west.example.com:7443\n"),
      out,
    );
    assert.ok(out.includes("Sync Configuration:\n  Interval:     30s\n"), out);
    assert.ok(
      out.includes("Conflict Resolution:\n  Strategy:       LastWriterWins\n  Vector Clocks:  true\n"),
      out,
    );
    assert.ok(
      out.includes(
        [
          "Member Status:",
          "  NAME       HEALTHY   LAST SEEN   SYNC LAG   AGENTS   ERROR",
          "  us-east    true      10d ago     1s         4        <none>",
          "  ap-south   false     10d ago     5m         2        connection refused",
        ].join("\n"),
      ),
      out,
    );
    assert.match(
      out,
      /Conditions:\n {2}TYPE +STATUS +REASON +MESSAGE\n {2}Ready +False +PeerUnreachable +ap-south unreachable\n$/,
    );
  });

  test("federation peers, conflicts and vector-clock", async () => {
    assert.equal(
      await ok(["federation", "peers", "global", "-n", NS]),
      [
        "NAME       ENDPOINT                        REGION       HEALTHY   LAST SEEN   SYNC LAG   AGENTS",
        "us-east    fed.us-east.example.com:7443    us-east-1    true      10d ago     1s         4",
        "ap-south   fed.ap-south.example.com:7443   ap-south-1   false     10d ago     5m         2",
        "",
      ].join("\n"),
    );
    const peers = JSON.parse(await ok(["federation", "peers", "global", "-n", NS, "-o", "json"]));
    assert.equal(peers.peers[1].status.error, "connection refused");
    assert.equal(
      await ok(["federation", "conflicts", "global", "-n", NS]),
      [
        "KIND         NAMESPACE   NAME   MEMBERS           RESOLUTION       WINNER    AGE",
        "ProxyRoute   shop        web    eu-west,us-east   LastWriterWins   us-east   10d",
        "",
      ].join("\n"),
    );
    assert.equal(
      await ok(["federation", "vector-clock", "global", "-n", NS]),
      [
        "Local Controller:",
        "  Member:  eu-west",
        "  Clock:",
        "    ap-south: 9",
        "    eu-west: 17",
        "    us-east: 12",
        "Peer Vector Clocks:",
        "  us-east:",
        "    us-east: 12",
        "  ap-south:",
        "    <none>",
        "",
      ].join("\n"),
    );
    const clocks = parseYaml(await ok(["fed", "vector-clock", "global", "-n", NS, "-o", "yaml"]));
    assert.deepEqual(clocks.localVectorClock, { "eu-west": 17, "us-east": 12, "ap-south": 9 });
  });

  test("federation sync stamps the annotation; --wait waits for status.lastSyncTime", async () => {
    const out = await ok(["federation", "sync", "global", "-n", NS]);
    assert.match(
      out,
      /^proxyfederation\.edgeproxy\.io\/global sync requested at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\n$/,
    );
    const f = await admin.request<{ metadata: { annotations: Record<string, string> } }>({
      path: `/apis/edgeproxy.io/v1alpha1/namespaces/${NS}/proxyfederations/global`,
    });
    assert.equal(out.trimEnd().split(" ").pop(), f.metadata.annotations["edgeproxy.io/sync-requested-at"]);
    const waited = await edgectl(["federation", "sync", "global", "-n", NS, "--wait", "--timeout", "1s"]);
    assert.equal(waited.code, 1);
    assert.match(waited.stderr, /no sync reported within 1s/);
    // The controller's answer: lastSyncTime at or after the stamp ends the wait.
    await admin.request({
      method: "PATCH",
      path: `/apis/edgeproxy.io/v1alpha1/namespaces/${NS}/proxyfederations/global/status`,
      contentType: "application/merge-patch+json",
      body: {
        status: { lastSyncTime: new Date(Date.now() + 3_600_000).toISOString().replace(/\.\d+Z$/, "Z") },
      },
    });
    const synced = await ok(["federation", "sync", "global", "-n", NS, "--wait", "--timeout", "10s"]);
    assert.match(synced, /\nproxyfederation\.edgeproxy\.io\/global synced at \d{4}-/);
    const missing = await edgectl(["federation", "sync", "nope", "-n", NS]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /not found/);
  });

  test("describe cluster and get clusters", async () => {
    const out = await ok(["describe", "cluster", "us-east", "-n", NS]);
    assert.match(out, /^Name: +us-east\nNamespace: +edge-system\n/);
    assert.match(out, /Kind: +ProxyCluster\n/);
    assert.match(out, /Region: +us-east-1/);
    assert.match(
      maskAge(await ok(["get", "clusters", "-n", NS])),
      /^NAME +REGION +FEDERATION +AGENTS +READY +AGE\nus-east +us-east-1 +global +3\/4 +True +<age>\n$/,
    );
  });
});

test("every new command has --help with examples", async () => {
  for (
    const cmd of [
      ["agent", "config"],
      ["agents", "list"],
      ["agents", "describe"],
      ["agents", "config"],
      ["cache", "stats"],
      ["cache", "purge"],
      ["federation", "status"],
      ["federation", "peers"],
      ["federation", "conflicts"],
      ["federation", "sync"],
      ["federation", "vector-clock"],
    ]
  ) {
    const out = await ok([...cmd, "--help"]);
    assert.match(out, /Examples:\n/, cmd.join(" "));
  }
});
