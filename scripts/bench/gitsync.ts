/**
 * `deno task bench:gitsync`: how long dist/gitsync-manager takes from a cold start to every
 * Application Healthy, and its peak memory, beside Flux's published figure (1,000 Kustomizations in
 * 4 m 16 s at 175 MiB; issue target: at most 60 s and 300 MB).
 *
 * Starts a throwaway kube-apiserver (test/harness/k8s.ts) and a Git server with one repository holding
 * `apps/app-N/` folders of 10 ConfigMaps each; 10 namespaces, each with a Repository on that URL and a
 * service account allowed to manage ConfigMaps; N Applications syncing automatically. Then starts the
 * manager and polls until every Application reports Ready True. Prints a table and writes JSON to
 * .cache/bench/gitsync.json.
 *
 *   deno task bench:gitsync                    # 1,000 Applications of 10 objects
 *   deno task bench:gitsync --apps 100 --concurrent 8
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { API_VERSION, loadCrds } from "../../controller/gitsync/crds.ts";
import { formatTable } from "../../internal/cli/mod.ts";
import { installCrds, KubeClient } from "../../internal/k8s/mod.ts";
import { startGitHttpServer } from "../../test/harness/git_server.ts";
import { startKubeApiServer } from "../../test/harness/k8s.ts";

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
if (!Number.isInteger(APPS) || APPS < 1) {
  throw new Error(`--apps must be a positive integer, not ${args.apps}`);
}
if (!existsSync(MANAGER)) {
  throw new Error(`${MANAGER} is missing: run \`deno task build gitsync-manager\` first`);
}

const line = (s: string) => process.stdout.write(`${s}\n`);

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

    line("starting gitsync-manager (cold) ...");
    const started = performance.now();
    let output = "";
    manager = spawn(MANAGER, [
      "run",
      "--kubeconfig",
      k8s.kubeconfigPath,
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
    ], { env: { ...process.env, ENABLE_WEBHOOKS: "false" }, stdio: ["ignore", "ignore", "pipe"] });
    manager.stderr!.on("data", (d) => (output = (output + d).slice(-20_000)));
    const peakMb = () =>
      Math.round(
        Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${manager!.pid}/status`, "utf8"))?.[1]) / 1024,
      );

    /** CPU seconds the manager used (user + system), from /proc: how much of the time is its own. */
    const cpuSeconds = () => {
      const fields = readFileSync(`/proc/${manager!.pid}/stat`, "utf8").split(") ")[1]!.split(" ");
      return (Number(fields[11]) + Number(fields[12])) / 100;
    };
    const deadline = Date.now() + Number(args.timeout) * 1000;
    let healthy = 0;
    let lastReport = 0;
    while (healthy < APPS) {
      if (Date.now() > deadline || manager.exitCode !== null) {
        throw new Error(`only ${healthy} of ${APPS} Healthy; manager output:\n${output}`);
      }
      await new Promise((r) => setTimeout(r, 1000));
      const list = await admin.request<
        { items: { status?: { conditions?: { type: string; status: string }[] } }[] }
      >({ path: `/apis/${API_VERSION}/applications` });
      healthy = list.items.filter((a) =>
        a.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True")
      ).length;
      if (Date.now() - lastReport > 10_000) {
        lastReport = Date.now();
        line(
          `  ${
            Math.round((performance.now() - started) / 1000)
          } s: ${healthy}/${APPS} Healthy, ${peakMb()} MB peak`,
        );
      }
    }
    const seconds = (performance.now() - started) / 1000;
    const peak = peakMb();
    const cpu = cpuSeconds();
    const result = {
      apps: APPS,
      objectsPerApp: OBJECTS_PER_APP,
      concurrent: Number(args.concurrent),
      secondsToAllHealthy: Math.round(seconds * 10) / 10,
      peakRssMb: peak,
      managerCpuSeconds: cpu,
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
        ["Applications", String(APPS), String(FLUX.apps), "1000"],
      ]),
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
