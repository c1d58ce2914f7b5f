/**
 * dist/edgectl logs and logs-access against a real kube-apiserver with kwok's fake nodes, which serve
 * the lines setPodLogs writes through the pods/log subresource as a kubelet would (including follow).
 * The proxy's Pods are created with the documented labels: a controller with two containers and one
 * agent per node, plus a Pod with other labels whose lines must never show up.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { after, before, describe, test } from "node:test";
import { parse as parseYaml } from "yaml";
import { KubeClient } from "../../internal/k8s/mod.ts";
import { baseEnv, binaryPath, runBinary } from "../harness/binary.ts";
import { type KubeApiServer, startKubeApiServer } from "../harness/k8s.ts";

const NS = "edge-system";
let k8s: KubeApiServer;
let admin: KubeClient;

const T0 = new Date(Date.now() - 30 * 60_000); // half an hour ago: inside --since 1h, outside --since 10m

function at(seconds: number): Date {
  return new Date(T0.getTime() + seconds * 1000);
}

function edgectl(args: string[]) {
  return runBinary("edgectl", args, { env: { KUBECONFIG: k8s.kubeconfigPath } });
}

async function ok(args: string[]): Promise<string> {
  const r = await edgectl(args);
  assert.equal(r.code, 0, `edgectl ${args.join(" ")}: ${r.stderr}`);
  return r.stdout;
}

function pod(name: string, labels: Record<string, string>, containers: string[], nodeName: string) {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: NS, labels },
    spec: { nodeName, containers: containers.map((c) => ({ name: c, image: `example.com/${c}:1` })) },
  };
}

const PROXY = { "app.kubernetes.io/name": "edgeproxy" };

function access(seconds: number, fields: Record<string, unknown>): { time: Date; text: string } {
  return {
    time: at(seconds),
    text: JSON.stringify({ time: at(seconds).toISOString(), level: "info", msg: "access", ...fields }),
  };
}

before(async () => {
  k8s = await startKubeApiServer({ workloads: true });
  admin = KubeClient.fromKubeconfig({ path: k8s.kubeconfigPath });
  await admin.request({ method: "POST", path: "/api/v1/namespaces", body: { metadata: { name: NS } } });
  const [n0, n1] = k8s.nodes;
  const pods = [
    pod("edge-controller-7d9f", { ...PROXY, "app.kubernetes.io/component": "controller" }, [
      "controller",
      "rbac-proxy",
    ], n0!),
    pod("edge-agent-a", { ...PROXY, "app.kubernetes.io/component": "agent" }, ["agent"], n0!),
    pod("edge-agent-b", { ...PROXY, "app.kubernetes.io/component": "agent" }, ["agent"], n1!),
    pod("bystander", { app: "other" }, ["main"], n0!),
  ];
  for (const p of pods) {
    await admin.request({ method: "POST", path: `/api/v1/namespaces/${NS}/pods`, body: p });
  }
  const deadline = Date.now() + 30_000;
  for (;;) {
    const list = await admin.request<{ items: { status: { phase?: string } }[] }>({
      path: `/api/v1/namespaces/${NS}/pods`,
    });
    if (list.items.every((p) => p.status.phase === "Running")) break;
    if (Date.now() > deadline) throw new Error("Pods not Running after 30 s");
    await new Promise((r) => setTimeout(r, 200));
  }
  await k8s.setPodLogs({
    namespace: NS,
    pod: "edge-controller-7d9f",
    lines: [
      { time: at(0), text: "controller starting" },
      { time: at(600), text: "reconciled 3 gateways" },
      { time: at(1500), text: "leader election renewed" },
    ],
  });
  await k8s.setPodLogs({
    namespace: NS,
    pod: "edge-agent-a",
    lines: [
      { time: at(1), text: '{"time":"x","level":"info","msg":"config applied","generation":4}' },
      access(10, {
        gateway: "shop/main",
        route: "shop/web",
        method: "GET",
        host: "shop.example.com",
        path: "/cart",
        status: 200,
        duration_ms: 12.5,
        bytes_out: 512,
      }),
      access(1700, {
        gateway: "shop/main",
        route: "shop/api",
        method: "POST",
        host: "api.example.com",
        path: "/orders",
        status: 503,
        duration_ms: 3001,
        bytes_out: 19,
      }),
    ],
  });
  await k8s.setPodLogs({
    namespace: NS,
    pod: "edge-agent-b",
    lines: [
      access(20, {
        gateway: "blog/edge",
        route: "blog/web",
        method: "GET",
        host: "blog.example.com",
        path: "/",
        status: 404,
        duration_ms: 1.2,
        bytes_out: 0,
      }),
    ],
  });
  await k8s.setPodLogs({ namespace: NS, pod: "bystander", lines: [{ time: at(5), text: "not the proxy" }] });
});

after(async () => {
  admin?.close();
  await k8s?.stop();
});

describe("edgectl logs", () => {
  test("controller: both containers, merged in time order with kubectl's prefix", async () => {
    const out = await ok(["logs", "controller"]);
    assert.equal(
      out,
      [
        "[pod/edge-controller-7d9f/controller] controller starting",
        "[pod/edge-controller-7d9f/rbac-proxy] controller starting",
        "[pod/edge-controller-7d9f/controller] reconciled 3 gateways",
        "[pod/edge-controller-7d9f/rbac-proxy] reconciled 3 gateways",
        "[pod/edge-controller-7d9f/controller] leader election renewed",
        "[pod/edge-controller-7d9f/rbac-proxy] leader election renewed",
        "",
      ].join("\n"),
    );
  });

  test("agent --node, --tail, --since and --timestamps", async () => {
    const node0 = k8s.nodes[0]!;
    const one = await ok(["logs", "agent", "--node", node0, "--tail", "1", "--timestamps"]);
    assert.match(one, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z \{.*"status":503.*\}\n$/);
    const recent = await ok(["logs", "agent", node0, "--since", "15m"]);
    assert.equal(recent.split("\n").length, 2, recent); // only the 503 line (1700 s after T0)
    assert.match(recent, /"status":503/);
    const all = await ok(["logs", "agent", "--since", "1h", "--tail", "-1"]);
    assert.doesNotMatch(all, /not the proxy/);
    assert.match(all, /^\[pod\/edge-agent-a\/agent\] .*config applied/m);
    assert.match(all, /^\[pod\/edge-agent-b\/agent\] .*"status":404/m);
    assert.equal(all.trimEnd().split("\n").length, 4);
  });

  test("access: only access-log lines", async () => {
    const out = await ok(["logs", "access", "--tail", "-1"]);
    assert.equal(out.trimEnd().split("\n").length, 3);
    assert.doesNotMatch(out, /config applied/);
  });

  test("-f prints new lines as they arrive, until interrupted", async () => {
    const child = spawn(binaryPath("edgectl"), ["logs", "controller", "-f", "--tail", "1"], {
      env: baseEnv({ KUBECONFIG: k8s.kubeconfigPath }),
    });
    try {
      const out = collect(child);
      await out.until((s) => s.split("\n").length >= 3); // two containers' last line
      assert.match(out.text(), /leader election renewed/);
      await k8s.setPodLogs({
        namespace: NS,
        pod: "edge-controller-7d9f",
        lines: [{ time: new Date(), text: "route shop/web programmed" }],
      });
      await out.until((s) => (s.match(/route shop\/web programmed/g) ?? []).length === 2);
      stop(child, "SIGINT");
      assert.equal(await exitCode(child), 0);
      assert.equal(out.text().trimEnd().split("\n").length, 4);
    } finally {
      child.kill("SIGKILL");
    }
  });

  test("errors: unknown target, no Pods, bad --since", async () => {
    let r = await edgectl(["logs", "gateway"]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^error: unknown log target "gateway": use controller, agent or access/);
    r = await edgectl(["logs", "agent", "--since", "5y"]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--since: "5y" is not a duration/);
    r = await edgectl(["logs", "agent", "--node", "nowhere"]);
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      /^error: no agent Pods \(app.kubernetes.io\/name=edgeproxy,app.kubernetes.io\/component=agent\) in namespace edge-system on node nowhere/,
    );
    r = await edgectl(["logs", "controller", "--proxy-namespace", "default"]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /no controller Pods .* in namespace default/);
  });
});

describe("edgectl logs-access", () => {
  test("table of every record in time order, across agents", async () => {
    const out = await ok(["logs-access"]);
    const lines = out.trimEnd().split("\n");
    assert.match(
      lines[0]!,
      /^TIME\s+NODE\s+GATEWAY\s+ROUTE\s+METHOD\s+HOST\s+PATH\s+STATUS\s+DURATION\s+BYTES$/,
    );
    assert.equal(lines.length, 4);
    assert.match(lines[1]!, /shop\/main\s+shop\/web\s+GET\s+shop.example.com\s+\/cart\s+200\s+12.5ms\s+512$/);
    assert.match(
      lines[2]!,
      new RegExp(`${k8s.nodes[1]}\\s+blog/edge\\s+blog/web\\s+GET .* 404\\s+1.2ms\\s+0$`),
    );
    assert.match(lines[3]!, /shop\/api\s+POST .* 503\s+3001ms\s+19$/);
  });

  test("filters: --gateway, --route, --status, --since; JSON and YAML", async () => {
    const json = JSON.parse(await ok(["logs-access", "--gateway", "main", "-o", "json"]));
    assert.deepEqual(json.items.map((r: { status: number }) => r.status), [200, 503]);
    assert.equal(json.items[0].node, k8s.nodes[0]);
    const yaml = parseYaml(await ok(["logs-access", "--route", "shop/api", "-o", "yaml"]));
    assert.deepEqual(yaml.items.map((r: { path: string }) => r.path), ["/orders"]);
    const byStatus = JSON.parse(await ok(["logs-access", "--status", "404", "-o", "json"]));
    assert.deepEqual(byStatus.items.map((r: { route: string }) => r.route), ["blog/web"]);
    const recent = JSON.parse(await ok(["logs-access", "--since", "10m", "-o", "json"]));
    assert.deepEqual(recent.items.map((r: { status: number }) => r.status), [503]);
    const none = await edgectl(["logs-access", "--route", "other/web"]);
    assert.equal(none.code, 0);
    assert.equal(none.stdout, "");
    assert.equal(none.stderr, "No access-log records found\n");
  });

  test("--follow prints matching records as they arrive", async () => {
    const child = spawn(binaryPath("edgectl"), ["logs-access", "--follow", "--status", "503", "-o", "json"], {
      env: baseEnv({ KUBECONFIG: k8s.kubeconfigPath }),
    });
    try {
      const out = collect(child);
      await out.until((s) => s.includes('"status":503'));
      const now = Date.now();
      await k8s.setPodLogs({
        namespace: NS,
        pod: "edge-agent-b",
        lines: [
          access(0, { gateway: "blog/edge", route: "blog/web", status: 200, path: "/ok" }),
          access(0, { gateway: "blog/edge", route: "blog/web", status: 503, path: "/down" }),
        ].map((l) => ({ ...l, time: new Date(now) })),
      });
      await out.until((s) => s.includes("/down"));
      stop(child, "SIGTERM");
      assert.equal(await exitCode(child), 0);
      const records = out.text().trimEnd().split("\n").map((l) => JSON.parse(l));
      assert.deepEqual(records.map((r) => r.path), ["/orders", "/down"]);
    } finally {
      child.kill("SIGKILL");
    }
  });

  test("a bad --status is a usage error", async () => {
    const r = await edgectl(["logs-access", "--status", "abc"]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--status must be an HTTP status code \(100-599\), not "abc"/);
  });
});

// Last: it adds an agent Pod, which the tests above must not see.
describe("edgectl logs -f across a rollout", () => {
  test("a Pod created while following is picked up and followed from its first line", async () => {
    const child = spawn(binaryPath("edgectl"), ["logs", "agent", "-f", "--tail", "1"], {
      env: baseEnv({ KUBECONFIG: k8s.kubeconfigPath }),
    });
    let stderr = "";
    child.stderr!.on("data", (d) => (stderr += d));
    try {
      const out = collect(child);
      await out.until((s) => s.split("\n").length >= 3); // the last line of both agents
      await admin.request({
        method: "POST",
        path: `/api/v1/namespaces/${NS}/pods`,
        body: pod(
          "edge-agent-c",
          { ...PROXY, "app.kubernetes.io/component": "agent" },
          ["agent"],
          k8s.nodes[0]!,
        ),
      });
      await k8s.setPodLogs({
        namespace: NS,
        pod: "edge-agent-c",
        lines: [{ time: new Date(), text: "agent c starting" }, { time: new Date(), text: "agent c ready" }],
      });
      await out.until((s) => s.includes("[pod/edge-agent-c/agent] agent c ready"));
      assert.match(
        out.text(),
        /\[pod\/edge-agent-c\/agent\] agent c starting\n\[pod\/edge-agent-c\/agent\] agent c ready\n/,
      );
      assert.match(stderr, /^following new pod\/edge-agent-c\/agent$/m);
      stop(child, "SIGINT");
      assert.equal(await exitCode(child), 0);
    } finally {
      child.kill("SIGKILL");
    }
  });
});

/** stdout of a child, with a wait for a condition on what it printed so far (bounded: 20 s). */
function collect(child: ChildProcess) {
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (d) => (stdout += d));
  child.stderr!.on("data", (d) => (stderr += d));
  return {
    text: () => stdout,
    async until(ok: (s: string) => boolean) {
      const deadline = Date.now() + 20_000;
      while (!ok(stdout)) {
        if (child.exitCode !== null) throw new Error(`edgectl exited ${child.exitCode}: ${stderr}`);
        if (Date.now() > deadline) throw new Error(`timed out; stdout: ${stdout}\nstderr: ${stderr}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
  };
}

/**
 * Signals the child by pid: Deno's child.kill() reports the signal as the cause of exit even when
 * the child handled it and exited 0, which would hide what the user sees.
 */
function stop(child: ChildProcess, signal: NodeJS.Signals) {
  process.kill(child.pid!, signal);
}

function exitCode(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once("exit", (code) => resolve(code)));
}
