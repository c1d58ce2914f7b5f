/**
 * `deno task bench:edgectl`: how fast dist/edgectl lists many resources compared with kubectl, and
 * how long it takes to start.
 *
 * Starts a throwaway kube-apiserver (test/harness/k8s.ts), installs the CRDs with edgectl, creates
 * 1,000 ProxyRoutes across 10 namespaces, then times (wall clock, alternating the two tools) N runs of
 * `edgectl get routes -A` and `kubectl get proxyroutes.edgeproxy.io -A`, and N runs of
 * `edgectl version --client`. It also creates 1,000 ProxyWANLinks (with measured status) and times
 * `edgectl sdwan links -A` against `kubectl get proxywanlinks.edgeproxy.io -A`. Then it creates 200 agent Pods (their status written by the script, all
 * pointing through the edgeproxy.io/agent-address annotation at one gRPC test agent) and times
 * `edgectl agents list` against `kubectl get pods -l <agent selector>`, and `edgectl agents config`
 * (one GetConfig per agent). Prints a table and writes the figures as JSON to
 * .cache/bench/edgectl.json. Every listing is checked to print every route, link or agent.
 *
 * With `--baseline <edgectl>` (another build, e.g. of main) that binary's `agents list` and `version
 * --client` are timed in the same rounds, for before/after figures from one run.
 *
 *   deno task bench:edgectl                       # 1,000 routes, 1,000 links, 200 agents, 15 runs each
 *   deno task bench:edgectl --routes 200 --links 200 --agents 50 --runs 5
 *   deno task bench:edgectl --baseline /tmp/edgectl-main
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { formatTable } from "../../internal/cli/mod.ts";
import { KubeClient } from "../../internal/k8s/mod.ts";
import { startKubeApiServer } from "../../test/harness/k8s.ts";
import { startTestAgent } from "../../test/edgectl/agent/agent_server.ts";
import { summarize } from "./stats.ts";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const EDGECTL = join(ROOT, "dist", "edgectl");
const KUBECTL = process.env.KUBECTL ?? "kubectl";
const NAMESPACES = 10;
const CREATE_CONCURRENCY = 16;

/** Runs a command to completion; returns wall time in ms and stdout. Fails on a non-zero exit. */
function timed(
  cmd: string,
  args: string[],
  env: Record<string, string>,
): Promise<{ ms: number; stdout: string }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => {
      const ms = performance.now() - started;
      if (code === 0) resolve({ ms, stdout });
      else reject(new Error(`${cmd} ${args.join(" ")} exited ${code}: ${stderr.trim()}`));
    });
  });
}

async function createRoutes(client: KubeClient, count: number) {
  for (let n = 0; n < NAMESPACES; n++) {
    await client.request({
      method: "POST",
      path: "/api/v1/namespaces",
      body: { apiVersion: "v1", kind: "Namespace", metadata: { name: `bench-${n}` } },
    });
  }
  let next = 0;
  await Promise.all(Array.from({ length: CREATE_CONCURRENCY }, async () => {
    for (let i = next++; i < count; i = next++) {
      const namespace = `bench-${i % NAMESPACES}`;
      await client.request({
        method: "POST",
        path: `/apis/edgeproxy.io/v1alpha1/namespaces/${namespace}/proxyroutes`,
        body: {
          apiVersion: "edgeproxy.io/v1alpha1",
          kind: "ProxyRoute",
          metadata: { name: `route-${String(i).padStart(4, "0")}`, namespace },
          spec: {
            hostnames: [`r${i}.example.com`],
            rules: [{
              matches: [{ path: { type: "PathPrefix", value: "/" } }],
              backendRef: { name: `svc-${i}` },
            }],
          },
        },
      });
    }
  }));
}

/** WAN links across the same namespaces, 4 per site, each with a measured status (as agents write it). */
async function createLinks(client: KubeClient, count: number) {
  let next = 0;
  await Promise.all(Array.from({ length: CREATE_CONCURRENCY }, async () => {
    for (let i = next++; i < count; i = next++) {
      const namespace = `bench-${i % NAMESPACES}`;
      const name = `link-${String(i).padStart(4, "0")}`;
      await client.request({
        method: "POST",
        path: `/apis/edgeproxy.io/v1alpha1/namespaces/${namespace}/proxywanlinks`,
        body: {
          apiVersion: "edgeproxy.io/v1alpha1",
          kind: "ProxyWANLink",
          metadata: { name, namespace },
          spec: {
            site: `site-${Math.floor(i / 4)}`,
            role: i % 4 === 0 ? "primary" : "backup",
            provider: `isp-${i % 7}`,
            sla: { maxLatencyMs: 50, maxLossPercent: 1 },
          },
        },
      });
      await client.request({
        method: "PATCH",
        path: `/apis/edgeproxy.io/v1alpha1/namespaces/${namespace}/proxywanlinks/${name}/status`,
        contentType: "application/merge-patch+json",
        body: { status: { latencyMs: 5 + (i % 60), lossPercent: (i % 5) * 0.5, healthy: true } },
      });
    }
  }));
}

const AGENT_NS = "edge-system";
const AGENT_SELECTOR = "app.kubernetes.io/name=edgeproxy,app.kubernetes.io/component=agent";

/** `count` agent Pods, Running with an IP, each dialled at `address` (one test agent for all). */
async function createAgents(client: KubeClient, count: number, address: string) {
  await client.request({
    method: "POST",
    path: "/api/v1/namespaces",
    body: { metadata: { name: AGENT_NS } },
  });
  // Pod admission needs the namespace's default ServiceAccount; no controller-manager runs here.
  await client.request({
    method: "POST",
    path: `/api/v1/namespaces/${AGENT_NS}/serviceaccounts`,
    body: { metadata: { name: "default" } },
  });
  let next = 0;
  await Promise.all(Array.from({ length: CREATE_CONCURRENCY }, async () => {
    for (let i = next++; i < count; i = next++) {
      const name = `edge-agent-${String(i).padStart(4, "0")}`;
      await client.request({
        method: "POST",
        path: `/api/v1/namespaces/${AGENT_NS}/pods`,
        body: {
          metadata: {
            name,
            labels: { "app.kubernetes.io/name": "edgeproxy", "app.kubernetes.io/component": "agent" },
            annotations: { "edgeproxy.io/agent-address": address },
          },
          spec: { nodeName: `node-${i}`, containers: [{ name: "agent", image: "example.com/agent:1" }] },
        },
      });
      await client.request({
        method: "PATCH",
        path: `/api/v1/namespaces/${AGENT_NS}/pods/${name}/status`,
        contentType: "application/merge-patch+json",
        body: {
          status: {
            phase: "Running",
            podIP: `10.${(i >> 8) & 255}.${i & 255}.2`,
            containerStatuses: [{
              name: "agent",
              ready: true,
              restartCount: 0,
              image: "example.com/agent:1",
              imageID: "",
              state: { running: {} },
            }],
          },
        },
      });
    }
  }));
}

function kubectlVersion(): string | undefined {
  const out = spawnSync(KUBECTL, ["version", "--client", "-o", "json"], { encoding: "utf8" }).stdout;
  try {
    return JSON.parse(out).clientVersion?.gitVersion;
  } catch {
    return undefined;
  }
}

async function main() {
  const { values } = parseArgs({
    options: {
      routes: { type: "string", default: "1000" },
      links: { type: "string", default: "1000" },
      agents: { type: "string", default: "200" },
      runs: { type: "string", default: "15" },
      baseline: { type: "string" },
    },
  });
  const baseline = values.baseline;
  if (baseline !== undefined && !existsSync(baseline)) {
    throw new Error(`--baseline ${baseline}: no such file`);
  }
  const routes = Number(values.routes);
  const links = Number(values.links);
  const agents = Number(values.agents);
  const runs = Number(values.runs);
  if (!(routes > 0) || !(links > 0) || !(agents > 0) || !(runs > 0)) {
    throw new Error("--routes, --links, --agents and --runs must be positive numbers");
  }
  if (spawnSync(KUBECTL, ["version", "--client"], { stdio: "ignore" }).status !== 0) {
    throw new Error(`kubectl not found (${KUBECTL}); set KUBECTL to its path`);
  }
  const build = spawnSync(join(ROOT, "node_modules", ".bin", "deno"), [
    "task",
    "build",
    "--if-stale",
    "edgectl",
  ], {
    cwd: ROOT,
    stdio: "inherit",
  });
  if (build.status !== 0 || !existsSync(EDGECTL)) throw new Error("building dist/edgectl failed");

  const k8s = await startKubeApiServer();
  const agent = await startTestAgent({ node: "bench" });
  const kubectlCache = mkdtempSync(join(tmpdir(), "bench-kubectl-cache-"));
  try {
    const env = { KUBECONFIG: k8s.kubeconfigPath };
    await timed(EDGECTL, ["install-crds"], env);
    const client = KubeClient.fromKubeconfig({ path: k8s.kubeconfigPath });
    const createStarted = performance.now();
    try {
      await createRoutes(client, routes);
      await createLinks(client, links);
    } finally {
      client.close();
    }
    const createMs = performance.now() - createStarted;
    console.log(
      `created ${routes} ProxyRoutes and ${links} ProxyWANLinks in ${(createMs / 1000).toFixed(1)} s`,
    );

    const edgectlGet = [EDGECTL, ["get", "routes", "-A"]] as const;
    // kubectl keeps its discovery cache in a temporary directory, warmed by the first run.
    const kubectlGet = [KUBECTL, [
      "get",
      "proxyroutes.edgeproxy.io",
      "-A",
      `--cache-dir=${kubectlCache}`,
    ]] as const;
    for (const [cmd, args] of [edgectlGet, kubectlGet]) {
      const { stdout } = await timed(cmd, [...args], env);
      const rows = stdout.trimEnd().split("\n").length - 1;
      if (rows !== routes) throw new Error(`${cmd} listed ${rows} routes, not ${routes}`);
    }
    const edgectlMs: number[] = [];
    const kubectlMs: number[] = [];
    for (let i = 0; i < runs; i++) {
      edgectlMs.push((await timed(edgectlGet[0], [...edgectlGet[1]], env)).ms);
      kubectlMs.push((await timed(kubectlGet[0], [...kubectlGet[1]], env)).ms);
    }
    const edgectlLinks = [EDGECTL, ["sdwan", "links", "-A"]] as const;
    const kubectlLinks = [KUBECTL, [
      "get",
      "proxywanlinks.edgeproxy.io",
      "-A",
      `--cache-dir=${kubectlCache}`,
    ]] as const;
    for (const [cmd, args] of [edgectlLinks, kubectlLinks]) {
      const { stdout } = await timed(cmd, [...args], env);
      const rows = stdout.trimEnd().split("\n").length - 1;
      if (rows !== links) throw new Error(`${cmd} listed ${rows} links, not ${links}`);
    }
    const edgectlLinksMs: number[] = [];
    const kubectlLinksMs: number[] = [];
    for (let i = 0; i < runs; i++) {
      edgectlLinksMs.push((await timed(edgectlLinks[0], [...edgectlLinks[1]], env)).ms);
      kubectlLinksMs.push((await timed(kubectlLinks[0], [...kubectlLinks[1]], env)).ms);
    }
    const startupMs: number[] = [];
    const baselineStartupMs: number[] = [];
    await timed(EDGECTL, ["version", "--client"], {});
    for (let i = 0; i < runs; i++) {
      startupMs.push((await timed(EDGECTL, ["version", "--client"], {})).ms);
      if (baseline) baselineStartupMs.push((await timed(baseline, ["version", "--client"], {})).ms);
    }

    const edgectl = summarize(edgectlMs);
    const kubectl = summarize(kubectlMs);
    const startup = summarize(startupMs);
    const sdwanLinks = summarize(edgectlLinksMs);
    const kubectlWanLinks = summarize(kubectlLinksMs);
    const ratio = Math.round((edgectl.p50 / kubectl.p50) * 100) / 100;

    const agentClient = KubeClient.fromKubeconfig({ path: k8s.kubeconfigPath });
    try {
      await createAgents(agentClient, agents, agent.address);
    } finally {
      agentClient.close();
    }
    console.log(`created ${agents} agent Pods`);
    const edgectlAgents = [EDGECTL, ["agents", "list", "--proxy-namespace", AGENT_NS]] as const;
    const kubectlAgents = [KUBECTL, [
      "get",
      "pods",
      "-n",
      AGENT_NS,
      "-l",
      AGENT_SELECTOR,
      `--cache-dir=${kubectlCache}`,
    ]] as const;
    const edgectlConfig = [EDGECTL, ["agents", "config", "--proxy-namespace", AGENT_NS]] as const;
    for (const [cmd, args] of [edgectlAgents, kubectlAgents, edgectlConfig]) {
      const { stdout } = await timed(cmd, [...args], env);
      const rows = stdout.trimEnd().split("\n").length - 1;
      if (rows !== agents) throw new Error(`${cmd} ${args[0]} listed ${rows} agents, not ${agents}`);
    }
    const agentsListMs: number[] = [];
    const baselineAgentsListMs: number[] = [];
    const kubectlPodsMs: number[] = [];
    const agentsConfigMs: number[] = [];
    for (let i = 0; i < runs; i++) {
      agentsListMs.push((await timed(edgectlAgents[0], [...edgectlAgents[1]], env)).ms);
      if (baseline) baselineAgentsListMs.push((await timed(baseline, [...edgectlAgents[1]], env)).ms);
      kubectlPodsMs.push((await timed(kubectlAgents[0], [...kubectlAgents[1]], env)).ms);
      agentsConfigMs.push((await timed(edgectlConfig[0], [...edgectlConfig[1]], env)).ms);
    }
    const agentsList = summarize(agentsListMs);
    const kubectlPods = summarize(kubectlPodsMs);
    const agentsConfig = summarize(agentsConfigMs);
    const agentsRatio = Math.round((agentsList.p50 / kubectlPods.p50) * 100) / 100;
    const baselineRows = baseline
      ? { startup: summarize(baselineStartupMs), agentsList: summarize(baselineAgentsListMs) }
      : undefined;
    const result = {
      date: new Date().toISOString(),
      routes,
      namespaces: NAMESPACES,
      machine: { cpus: cpus().length, loadavg1m: Math.round(loadavg()[0]! * 100) / 100 },
      kubectlVersion: kubectlVersion(),
      edgectlGetRoutes: edgectl,
      kubectlGetRoutes: kubectl,
      ratioEdgectlToKubectl: ratio,
      edgectlVersionClient: startup,
      links,
      edgectlSdwanLinks: sdwanLinks,
      kubectlGetWanLinks: kubectlWanLinks,
      ratioSdwanLinksToKubectl: Math.round((sdwanLinks.p50 / kubectlWanLinks.p50) * 100) / 100,
      agents,
      edgectlAgentsList: agentsList,
      kubectlGetAgentPods: kubectlPods,
      ratioAgentsListToKubectl: agentsRatio,
      edgectlAgentsConfig: agentsConfig,
      ...(baselineRows && {
        baseline: {
          binary: baseline,
          versionClient: baselineRows.startup,
          agentsList: baselineRows.agentsList,
          ratioAgentsListToKubectl: Math.round((baselineRows.agentsList.p50 / kubectlPods.p50) * 100) / 100,
        },
      }),
    };
    process.stdout.write(
      formatTable(["measurement", "runs", "median ms", "min ms", "max ms"], [
        ["edgectl get routes -A", edgectl.n, edgectl.p50, edgectl.min, edgectl.max],
        ["kubectl get proxyroutes -A", kubectl.n, kubectl.p50, kubectl.min, kubectl.max],
        ["edgectl sdwan links -A", sdwanLinks.n, sdwanLinks.p50, sdwanLinks.min, sdwanLinks.max],
        [
          "kubectl get proxywanlinks -A",
          kubectlWanLinks.n,
          kubectlWanLinks.p50,
          kubectlWanLinks.min,
          kubectlWanLinks.max,
        ],
        ["edgectl version --client", startup.n, startup.p50, startup.min, startup.max],
        [`edgectl agents list (${agents})`, agentsList.n, agentsList.p50, agentsList.min, agentsList.max],
        [
          `kubectl get pods -l agent (${agents})`,
          kubectlPods.n,
          kubectlPods.p50,
          kubectlPods.min,
          kubectlPods.max,
        ],
        ...(baselineRows
          ? [
            [
              "baseline version --client",
              baselineRows.startup.n,
              baselineRows.startup.p50,
              baselineRows.startup.min,
              baselineRows.startup.max,
            ],
            [
              `baseline agents list (${agents})`,
              baselineRows.agentsList.n,
              baselineRows.agentsList.p50,
              baselineRows.agentsList.min,
              baselineRows.agentsList.max,
            ],
          ]
          : []),
        [
          `edgectl agents config (${agents} gRPC)`,
          agentsConfig.n,
          agentsConfig.p50,
          agentsConfig.min,
          agentsConfig.max,
        ],
      ]),
    );
    console.log(
      `ratio edgectl/kubectl (median wall time, ${routes} routes): ${ratio}` +
        ` (load average ${result.machine.loadavg1m} on ${result.machine.cpus} CPUs)`,
    );
    console.log(`ratio edgectl sdwan links/kubectl (${links} links): ${result.ratioSdwanLinksToKubectl}`);
    console.log(`ratio edgectl agents list / kubectl get pods (${agents} agents): ${agentsRatio}`);
    if (result.baseline) {
      console.log(
        `ratio baseline agents list / kubectl get pods: ${result.baseline.ratioAgentsListToKubectl}`,
      );
    }
    const out = join(ROOT, ".cache", "bench");
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, "edgectl.json"), `${JSON.stringify(result, null, 2)}\n`);
    console.log(`wrote .cache/bench/edgectl.json`);
  } finally {
    rmSync(kubectlCache, { recursive: true, force: true });
    await agent.close();
    await k8s.stop();
  }
}

await main();
