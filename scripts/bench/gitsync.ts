/**
 * `deno task bench:gitsync`: how long dist/gitsync-manager takes from a cold start to every
 * Application Healthy, and its peak memory, beside Flux's published figure (1,000 Kustomizations in
 * 4 m 16 s at 175 MiB; issue target: at most 60 s and 300 MB).
 *
 * Starts a throwaway kube-apiserver (test/harness/k8s.ts) and a Git server with one repository holding
 * `apps/app-N/` folders of 10 ConfigMaps each; 10 namespaces, each with a Repository on that URL and a
 * service account allowed to manage ConfigMaps; N Applications syncing automatically. Then starts the
 * manager, as deploy/gitsync/install.yaml's service account with a token, and watches until every
 * Application reports Ready True. Prints a table and writes JSON to
 * .cache/bench/gitsync.json.
 *
 * Beside time and memory it prints what explains them (the API server and etcd share the cores, so
 * wall time is about the CPU of all three over the cores): CPU seconds of the manager, kube-apiserver
 * and etcd (from /proc), and the API requests the run made by verb and resource (the API server's
 * apiserver_request_total before and after, less the bench's own watch), per Application.
 *
 *   deno task bench:gitsync                    # 1,000 Applications of 10 objects
 *   deno task bench:gitsync --apps 100 --concurrent 8
 *   BENCH_PROFILE_DIR=/tmp/prof deno task bench:gitsync   # also CPU profiles of the manager and API server
 */
import { type ChildProcess, spawn } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { loadCrds } from "../../controller/gitsync/crds.ts";
import { formatTable } from "../../internal/cli/mod.ts";
import { Informer, installCrds, KubeClient, type KubeObject, objectKey } from "../../internal/k8s/mod.ts";
import { startGitHttpServer } from "../../test/harness/git_server.ts";
import { startKubeApiServer } from "../../test/harness/k8s.ts";
import { installControllerRbac } from "../../test/gitsync/install_fixture.ts";
import { procStat } from "./proc_stat.ts";
import { API_VERSION } from "../../controller/gitsync/api/mod.ts";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const MANAGER = join(ROOT, "dist", "gitsync-manager");
const NAMESPACES = 10;
const OBJECTS_PER_APP = 10;
const FLUX = { apps: 1000, seconds: 256, peakMiB: 175, source: "fluxcd.io blog, Flux v2.2 benchmark" };

const { values: args } = parseArgs({
  options: {
    apps: { type: "string", default: "1000" },
    concurrent: { type: "string", default: "4" },
    timeout: { type: "string", default: "900" },
  },
});
const APPS = Number(args.apps);
// BENCH_PROFILE_DIR=dir: the manager's CPU profile (Bun, markdown) and the API server's (pprof) go there.
const PROFILE_DIR = process.env.BENCH_PROFILE_DIR;
const PROFILE_SECONDS = Number(process.env.BENCH_PROFILE_SECONDS ?? 60);
if (!Number.isInteger(APPS) || APPS < 1) {
  throw new Error(`--apps must be a positive integer, not ${args.apps}`);
}
if (!existsSync(MANAGER)) {
  throw new Error(`${MANAGER} is missing: run \`deno task build gitsync-manager\` first`);
}

const line = (s: string) => process.stdout.write(`${s}\n`);

/** CPU seconds (user + system) a process has used, from /proc/<pid>/stat. */
function cpuSecondsOf(pid: number): number {
  return procStat(pid).cpuMs / 1000;
}

/** The pids of this process's children named `name` (the harness's kube-apiserver and etcd). */
function childPid(name: string): number | undefined {
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const { comm, ppid } = procStat(Number(entry));
      if (comm === name && ppid === process.pid) return Number(entry);
    } catch {
      // Gone since readdir.
    }
  }
  return undefined;
}

/** apiserver_request_total by "VERB resource[/subresource][ dry-run]", summed over codes and versions. */
async function requestCounts(admin: KubeClient): Promise<Map<string, number>> {
  const text = await admin.request<string>({ path: "/metrics", accept: "text/plain" });
  const counts = new Map<string, number>();
  for (const m of String(text).matchAll(/^apiserver_request_total\{([^}]*)\} (\S+)$/gm)) {
    const labels = Object.fromEntries([...m[1]!.matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]));
    const key = `${labels.verb} ${labels.resource}${labels.subresource ? `/${labels.subresource}` : ""}${
      labels.dry_run ? " (dry run)" : ""
    }`;
    counts.set(key, (counts.get(key) ?? 0) + Number(m[2]));
  }
  return counts;
}

/** Runs `f` over `items` with at most `n` in flight. */
async function pool<T>(items: T[], n: number, f: (item: T) => Promise<unknown>) {
  let next = 0;
  await Promise.all(Array.from({ length: n }, async () => {
    while (next < items.length) await f(items[next++]!);
  }));
}

function files(): Record<string, string> {
  const out: Record<string, string> = {};
  for (let a = 0; a < APPS; a++) {
    for (let o = 0; o < OBJECTS_PER_APP; o++) {
      out[`apps/app-${a}/cm-${o}.yaml`] =
        `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app-${a}-cm-${o}\ndata:\n  n: "${o}"\n`;
    }
  }
  return out;
}

async function main() {
  line(
    `gitsync bench: ${APPS} Applications x ${OBJECTS_PER_APP} ConfigMaps, --concurrent ${args.concurrent}`,
  );
  const work = mkdtempSync(join(tmpdir(), "gitsync-bench-"));
  const [k8s, git] = await Promise.all([startKubeApiServer(), startGitHttpServer()]);
  const admin = KubeClient.fromKubeconfig({ path: k8s.kubeconfigPath });
  let manager: ChildProcess | undefined;
  try {
    line("setting up: CRDs, repository, namespaces, Applications ...");
    await installCrds(admin, await loadCrds(), { fieldManager: "bench", timeoutMs: 60_000 });
    const repo = await git.createRepo("apps", files());
    for (let n = 0; n < NAMESPACES; n++) {
      const ns = `bench-${n}`;
      const rbac = `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}`;
      await admin.request({ method: "POST", path: "/api/v1/namespaces", body: { metadata: { name: ns } } });
      await admin.request({
        method: "POST",
        path: `/api/v1/namespaces/${ns}/serviceaccounts`,
        body: { metadata: { name: "deployer" } },
      });
      await admin.request({
        method: "POST",
        path: `${rbac}/roles`,
        body: {
          metadata: { name: "deployer" },
          rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["*"] }],
        },
      });
      await admin.request({
        method: "POST",
        path: `${rbac}/rolebindings`,
        body: {
          metadata: { name: "deployer" },
          roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "deployer" },
          subjects: [{ kind: "ServiceAccount", name: "deployer", namespace: ns }],
        },
      });
      await admin.request({
        method: "POST",
        path: `/apis/${API_VERSION}/namespaces/${ns}/repositories`,
        body: {
          apiVersion: API_VERSION,
          kind: "Repository",
          metadata: { name: "apps" },
          spec: { git: { url: repo.url } },
        },
      });
    }
    await pool([...Array(APPS).keys()], 16, (a) =>
      admin.request({
        method: "POST",
        path: `/apis/${API_VERSION}/namespaces/bench-${a % NAMESPACES}/applications`,
        body: {
          apiVersion: API_VERSION,
          kind: "Application",
          metadata: { name: `app-${a}` },
          spec: {
            serviceAccountName: "deployer",
            sync: { automatic: true },
            source: { repositoryRef: { name: "apps" }, path: `apps/app-${a}` },
          },
        },
      }));

    // The manager runs as deploy/gitsync/install.yaml's service account, with a token as in a cluster
    // (not the harness's admin certificate: the API server verifies a client certificate's chain on
    // every request, about a tenth of its CPU here, while a token's review is cached).
    const kubeconfig = await installControllerRbac(admin, k8s, join(work, "manager.kubeconfig"));
    const servers = { "kube-apiserver": childPid("kube-apiserver"), etcd: childPid("etcd") };
    const serverCpuBefore = Object.fromEntries(
      Object.entries(servers).map(([name, pid]) => [name, pid ? cpuSecondsOf(pid) : 0]),
    );
    const requestsBefore = await requestCounts(admin);
    line(`starting gitsync-manager (cold) ... (uptime load ${loadavg().map((l) => l.toFixed(2)).join(" ")})`);
    const started = performance.now();
    let output = "";
    manager = spawn(MANAGER, [
      "run",
      "--kubeconfig",
      kubeconfig,
      "--health-probe-bind-address",
      "0",
      "--cache-dir",
      join(work, "cache"),
      "--concurrent",
      args.concurrent,
      // BENCH_DRIFT_WATCH="" measures without the drift watch (its cost: docs/gitsync.md).
      ...(process.env.BENCH_DRIFT_WATCH !== undefined
        ? ["--drift-watch-kinds", process.env.BENCH_DRIFT_WATCH]
        : []),
    ], {
      env: {
        ...process.env,
        ENABLE_WEBHOOKS: "false",
        ...(PROFILE_DIR
          ? {
            BUN_OPTIONS:
              `--cpu-prof-md --heap-prof-md --cpu-prof-dir=${PROFILE_DIR} --heap-prof-dir=${PROFILE_DIR}`,
          }
          : {}),
      },
      stdio: ["ignore", "ignore", "pipe"],
    });
    // The API server's CPU profile over the run's first PROFILE_SECONDS (Go pprof; `go tool pprof -top`).
    const certs = dirname(k8s.caFile);
    const apiProfile = PROFILE_DIR
      ? new Promise((resolve) =>
        spawn("curl", [
          "-sS",
          ...["--cacert", k8s.caFile, "--cert", join(certs, "admin.crt"), "--key", join(certs, "admin.key")],
          "-o",
          join(PROFILE_DIR, "kube-apiserver.pprof"),
          `${k8s.server}/debug/pprof/profile?seconds=${PROFILE_SECONDS}`,
        ], { stdio: "inherit" }).on("exit", resolve)
      )
      : undefined;
    manager.stderr!.on("data", (d) => (output = (output + d).slice(-20_000)));
    const peakMb = () =>
      Math.round(
        Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${manager!.pid}/status`, "utf8"))?.[1]) / 1024,
      );

    // Readiness from a watch (the Informer the manager uses), not a LIST of every Application each
    // second: the API server's CPU is part of the figure, and polling 1,000 objects a second was ours.
    const watchStop = new AbortController();
    const ready = new Set<string>();
    let allHealthyAt: number | undefined;
    // Until the first Application is Healthy the manager fetches and checks out the Repositories.
    let firstHealthy: { seconds: number; managerCpuSeconds: number } | undefined;
    const applications = new Informer<KubeObject & { ready?: boolean }>(admin, {
      path: `/apis/${API_VERSION}/applications`,
      transform: (o) => ({
        metadata: {
          name: o.metadata?.name,
          namespace: o.metadata?.namespace,
          resourceVersion: o.metadata?.resourceVersion,
        },
        ready: Boolean(
          (o as { status?: { conditions?: { type: string; status: string }[] } }).status?.conditions
            ?.some((c) => c.type === "Ready" && c.status === "True"),
        ),
      }),
    });
    applications.onEvent((e) => {
      if (e.object.ready && e.type !== "delete") ready.add(objectKey(e.object));
      else ready.delete(objectKey(e.object));
      if (ready.size && !firstHealthy) {
        firstHealthy = {
          seconds: Math.round((performance.now() - started) / 100) / 10,
          managerCpuSeconds: cpuSecondsOf(manager!.pid!),
        };
      }
      if (ready.size === APPS) allHealthyAt ??= performance.now();
    });
    const watching = applications.run(watchStop.signal);
    const deadline = Date.now() + Number(args.timeout) * 1000;
    let lastReport = 0;
    while (allHealthyAt === undefined) {
      if (Date.now() > deadline || manager.exitCode !== null) {
        throw new Error(`only ${ready.size} of ${APPS} Healthy; manager output:\n${output}`);
      }
      await new Promise((r) => setTimeout(r, 200));
      if (Date.now() - lastReport > 10_000) {
        lastReport = Date.now();
        line(
          `  ${
            Math.round((performance.now() - started) / 1000)
          } s: ${ready.size}/${APPS} Healthy, ${peakMb()} MB peak`,
        );
      }
    }
    watchStop.abort();
    await watching;
    await apiProfile;
    const seconds = (allHealthyAt - started) / 1000;
    const peak = peakMb();
    const cpu = cpuSecondsOf(manager.pid!);
    const serverCpu = Object.fromEntries(
      Object.entries(servers).map((
        [name, pid],
      ) => [name, pid ? Math.round((cpuSecondsOf(pid) - serverCpuBefore[name]!) * 10) / 10 : null]),
    );
    const requestsAfter = await requestCounts(admin);
    // The manager's requests: the difference, less the bench's own watch (one LIST, one WATCH).
    const requests: Record<string, number> = {};
    for (const [key, n] of requestsAfter) {
      let made = n - (requestsBefore.get(key) ?? 0);
      if (key === "LIST applications" || key === "WATCH applications") made -= 1;
      if (made > 0) requests[key] = made;
    }
    const totalRequests = Object.entries(requests).filter(([k]) => !k.startsWith("WATCH"))
      .reduce((sum, [, n]) => sum + n, 0);
    const result = {
      apps: APPS,
      objectsPerApp: OBJECTS_PER_APP,
      concurrent: Number(args.concurrent),
      secondsToAllHealthy: Math.round(seconds * 10) / 10,
      peakRssMb: peak,
      managerCpuSeconds: cpu,
      firstHealthy,
      serverCpuSeconds: serverCpu,
      requests,
      requestsPerApp: Math.round((totalRequests / APPS) * 10) / 10,
      flux: FLUX,
      target: { seconds: 60, peakRssMb: 300 },
      machine: { cpus: cpus().length, loadavg: loadavg().map((l) => Math.round(l * 100) / 100) },
      at: new Date().toISOString(),
    };
    line("");
    process.stdout.write(
      formatTable(["figure", "gitsync-manager", `Flux (${FLUX.apps} Kustomizations)`, "target"], [
        [
          "cold start to all Healthy (s)",
          result.secondsToAllHealthy.toFixed(1),
          String(FLUX.seconds),
          "<= 60",
        ],
        ["peak RSS (MB)", String(peak), `${Math.round(FLUX.peakMiB * 1.048576)}`, "<= 300"],
        ["manager CPU (s)", cpu.toFixed(1), "", ""],
        [
          "  of which before the first Healthy (s)",
          `${firstHealthy!.managerCpuSeconds.toFixed(1)} (at ${firstHealthy!.seconds} s)`,
          "",
          "",
        ],
        ["kube-apiserver CPU (s)", String(serverCpu["kube-apiserver"] ?? "?"), "", ""],
        ["etcd CPU (s)", String(serverCpu.etcd ?? "?"), "", ""],
        ["API requests per Application", result.requestsPerApp.toFixed(1), "", ""],
        ["Applications", String(APPS), String(FLUX.apps), "1000"],
      ]),
    );
    line("");
    process.stdout.write(
      formatTable(
        ["API requests (less the bench's watch)", "count", "per Application"],
        Object.entries(requests).sort((a, b) => b[1] - a[1]).map((
          [key, n],
        ) => [key, String(n), (n / APPS).toFixed(2)]),
      ),
    );
    mkdirSync(join(ROOT, ".cache", "bench"), { recursive: true });
    writeFileSync(join(ROOT, ".cache", "bench", "gitsync.json"), JSON.stringify(result, null, 2) + "\n");
    line(`\nwritten to .cache/bench/gitsync.json`);
  } finally {
    if (manager && manager.exitCode === null) manager.kill("SIGTERM");
    admin.close();
    await Promise.all([k8s.stop(), git.stop()]);
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
