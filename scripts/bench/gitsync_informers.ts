/**
 * `deno task bench:gitsync-informers`: internal/k8s's informer against @kubernetes/client-node's
 * makeInformer, each compiled with `bun build --compile` as gitsync-manager is, on the same kube-apiserver
 * holding N Applications: time from process start until the first list is cached, time until a watch event
 * for a new object arrives, peak RSS (/usr/bin/time) and binary size. This is the measurement behind keeping
 * our own informer and leader election in internal/k8s (docs/gitsync.md).
 *
 *   deno task bench:gitsync-informers                    # 1,000 Applications, 5 runs each
 *   deno task bench:gitsync-informers --apps 200 --runs 3
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { formatTable } from "../../internal/cli/mod.ts";
import { installCrds, KubeClient } from "../../internal/k8s/mod.ts";
import { loadCrds } from "../../controller/gitsync/crds.ts";
import { startKubeApiServer } from "../../test/harness/k8s.ts";
import { writeTokenKubeconfig } from "../../test/harness/k8s_fixtures.ts";
import { summarize } from "./stats.ts";
import { API_VERSION } from "../../controller/gitsync/api/mod.ts";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const OUT = join(ROOT, ".cache", "bench");
const PROBES = {
  ours: "scripts/bench/informers/ours.ts",
  "client-node": "scripts/bench/informers/client_node.ts",
};
type Probe = keyof typeof PROBES;

const { values: flags } = parseArgs({
  options: { apps: { type: "string", default: "1000" }, runs: { type: "string", default: "5" } },
});
const APPS = Number(flags.apps);
const RUNS = Number(flags.runs);

function compile(probe: Probe): string {
  const out = join(OUT, `informer-${probe}`);
  const r = spawnSync(join(ROOT, "node_modules", ".bin", "bun"), [
    "build",
    "--compile",
    "--minify",
    PROBES[probe],
    "--outfile",
    out,
  ], { cwd: ROOT, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`compiling ${probe}: ${r.stderr}`);
  return out;
}

interface RunResult {
  syncedMs: number;
  /** Undefined when the watch event never came (watchError says why). */
  watchedMs?: number;
  watchError?: string;
  rssMb: number;
}

/** One probe run: start → synced (first line), then one more object created → watched (second line). */
function runProbe(
  bin: string,
  kubeconfig: string,
  path: string,
  expected: number,
  createOne: () => Promise<void>,
  env: Record<string, string> = {},
) {
  return new Promise<RunResult>((resolve, reject) => {
    const child = spawn("/usr/bin/time", ["-f", "%M", bin, kubeconfig, path, String(expected)], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, ...env },
    });
    let out = "";
    let err = "";
    let created = false;
    child.stdout.on("data", (d) => {
      out += d;
      if (!created && out.includes("\n")) {
        created = true;
        createOne().catch(reject);
      }
    });
    child.stderr.on("data", (d) => (err += d));
    child.on("close", (code) => {
      const [first, second] = out.trim().split("\n").filter(Boolean).map((l) => JSON.parse(l));
      if (code !== 0 || !first || !second) {
        return reject(new Error(`${bin} failed (${code}): ${err} stdout: ${out}`));
      }
      if (first.items !== expected) {
        return reject(new Error(`${bin} cached ${first.items}, expected ${expected}`));
      }
      const lines = err.trim().split("\n");
      resolve({
        syncedMs: first.syncedMs,
        rssMb: Number(lines.at(-1)) / 1024,
        ...(second.watched
          ? { watchedMs: second.watchedMs - first.syncedMs }
          : { watchError: lines.slice(0, -1).join(" ").slice(0, 160) || "no event within 30 s" }),
      });
    });
  });
}

/** A kubeconfig with a bound service account's token (cluster-admin), for both probes. */
async function tokenKubeconfig(admin: KubeClient, server: string, caFile: string): Promise<string> {
  await admin.request({
    method: "POST",
    path: "/api/v1/namespaces/bench/serviceaccounts",
    body: { metadata: { name: "probe" } },
  });
  await admin.request({
    method: "POST",
    path: "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
    body: {
      metadata: { name: "bench-probe" },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "cluster-admin" },
      subjects: [{ kind: "ServiceAccount", name: "probe", namespace: "bench" }],
    },
  });
  const { status } = await admin.request<{ status: { token: string } }>({
    method: "POST",
    path: "/api/v1/namespaces/bench/serviceaccounts/probe/token",
    body: { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: { expirationSeconds: 3600 } },
  });
  return await writeTokenKubeconfig(join(OUT, "informer-probe.kubeconfig"), { server, caFile }, status.token);
}

async function main() {
  mkdirSync(OUT, { recursive: true });
  console.error("compiling the two probes with bun build --compile");
  const bins = { ours: compile("ours"), "client-node": compile("client-node") };
  console.error("starting kube-apiserver");
  const k8s = await startKubeApiServer();
  const admin = KubeClient.fromKubeconfig({ path: k8s.kubeconfigPath });
  try {
    await installCrds(admin, await loadCrds(), { fieldManager: "bench", timeoutMs: 30_000 });
    await admin.request({
      method: "POST",
      path: "/api/v1/namespaces",
      body: { metadata: { name: "bench" } },
    });
    let count = 0;
    const createApp = async () => {
      const name = `app-${count++}`;
      await admin.request({
        method: "POST",
        path: `/apis/${API_VERSION}/namespaces/bench/applications`,
        body: {
          apiVersion: API_VERSION,
          kind: "Application",
          metadata: { name },
          spec: {
            source: { repositoryRef: { name: "repo" }, path: `apps/${name}` },
            sync: { automatic: true },
          },
        },
      });
    };
    console.error(`creating ${APPS} Applications`);
    const queue = Array.from({ length: APPS }, (_, i) => i);
    await Promise.all(Array.from({ length: 16 }, async () => {
      while (queue.shift() !== undefined) await createApp();
    }));
    const path = `/apis/${API_VERSION}/applications`;
    // client-node 2.0.1 on Bun hands its TLS settings to fetch through an https.Agent, which Bun's fetch
    // ignores: the kubeconfig's CA is not trusted and its client certificate not sent. Shown once as it is
    // (admin kubeconfig, client certificate); then both probes use a service account token, and
    // client-node runs with TLS verification off — never acceptable in production, here only for figures.
    const asIs = await runProbe(bins["client-node"], k8s.kubeconfigPath, path, count, createApp).then(
      (r) => r.watchError ?? "works",
      (err: Error) =>
        err.message.replace(/^.*?(failed \(\d+\): |cached)/, "$1").split(" stdout:")[0]!.slice(0, 160),
    );
    const kubeconfig = await tokenKubeconfig(admin, k8s.server, k8s.caFile);
    const results: Record<Probe, RunResult[]> = { ours: [], "client-node": [] };
    for (let run = 0; run < RUNS; run++) {
      for (const probe of ["ours", "client-node"] as Probe[]) {
        const env: Record<string, string> = probe === "client-node"
          ? { NODE_TLS_REJECT_UNAUTHORIZED: "0" }
          : {};
        results[probe].push(await runProbe(bins[probe], kubeconfig, path, count, createApp, env));
      }
      console.error(`  run ${run + 1}/${RUNS} done`);
    }
    const row = (probe: Probe) => {
      const r = results[probe];
      return [
        probe === "ours" ? "internal/k8s Informer" : "client-node makeInformer (TLS verify off)",
        summarize(r.map((x) => x.syncedMs)).p50.toFixed(0),
        r.every((x) => x.watchedMs !== undefined)
          ? summarize(r.map((x) => x.watchedMs!)).p50.toFixed(0)
          : `never (${r.find((x) => x.watchError)!.watchError})`,
        summarize(r.map((x) => x.rssMb)).p50.toFixed(1),
        (statSync(bins[probe]).size / 1e6).toFixed(1),
      ];
    };
    console.log(`${APPS} Applications, ${RUNS} runs each, medians`);
    console.log(
      formatTable(["informer", "start to synced ms", "watch event ms", "peak RSS MB", "binary MB"], [
        row("ours"),
        row("client-node"),
      ]),
    );
    console.log(`client-node on Bun with the admin kubeconfig (cluster CA, client certificate): ${asIs}`);
    writeFileSync(
      join(OUT, "gitsync-informers.json"),
      JSON.stringify({ apps: APPS, runs: RUNS, clientNodeAsIs: asIs, results }, null, 2),
    );
  } finally {
    admin.close();
    await k8s.stop();
  }
}

await main();
