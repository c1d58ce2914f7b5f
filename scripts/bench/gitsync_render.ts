/**
 * `deno task bench:gitsync-render`: how fast gitsync renders an Application's source, against the Go
 * binary doing the same (`kubectl kustomize`, kustomize v5.5.0), on the Kustomize corpus of
 * test/fixtures/kustomize (15 kustomizations) and on a plain-YAML folder of 1,000 objects.
 *
 * - cold: one process per render — `dist/gitsync-manager render -o table` (start, load and instantiate the
 *   embedded wasm, render) against `kubectl kustomize` — wall time and peak RSS (/usr/bin/time).
 * - warm: in this process on Bun (the runtime of the binaries), one Kustomize worker already started,
 *   each kustomization built N times — against `kubectl kustomize`, which has no warm mode.
 * - memory: this process's RSS before the worker starts and after the warm runs.
 *
 * Helm: the same three measures on the Helm corpus (test/fixtures/helm: webapp, umbrella) against the
 * pinned helm v3.16.4 binary (`helm template --include-crds --skip-tests`, test/helm): cold is
 * `dist/gitsync-manager render --render helm` per process, warm is the Helm worker in this process.
 *
 *   deno task bench:gitsync-render              # 5 cold runs and 20 warm runs per kustomization
 *   deno task bench:gitsync-render --runs 3 --warm-runs 10
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { formatTable } from "../../internal/cli/mod.ts";
import { DEFAULT_KUBE_VERSION, Helm } from "../../controller/gitsync/render/helm.ts";
import { chartFromTree } from "../../controller/gitsync/render/helm_source.ts";
import { Kustomize } from "../../controller/gitsync/render/kustomize.ts";
import { cachedBinary } from "../testenv/go_build.ts";
import { HELM } from "../testenv/servers.ts";
import { renderPlainYaml } from "../../controller/gitsync/render/plain_yaml.ts";
import { readLocalTree } from "../../controller/gitsync/source/local_tree.ts";
import { summarize } from "./stats.ts";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const CORPUS = join(ROOT, "test", "fixtures", "kustomize");
const HELM_CORPUS = join(ROOT, "test", "fixtures", "helm");
const HELM_CASES = ["webapp", "umbrella"];
const MANAGER = join(ROOT, "dist", "gitsync-manager");
const KUBECTL = process.env.KUBECTL ?? "kubectl";
const CASES = [
  "base",
  "overlays/prod",
  "overlays/staging",
  "overlays/with-component",
  "generators",
  "replacements",
  "labels",
  "patch-target",
  "crds",
  "namespace-rbac",
  "name-references",
  "delete-patch",
  "multi-base/frontend",
  "multi-base/all",
  "sort-fifo",
];

const { values: flags } = parseArgs({
  options: { runs: { type: "string", default: "5" }, "warm-runs": { type: "string", default: "20" } },
});
const RUNS = Number(flags.runs);
const WARM_RUNS = Number(flags["warm-runs"]);

/** One process to completion under /usr/bin/time: wall ms and peak RSS in MB. */
function oneShot(cmd: string, args: string[]): { ms: number; rssMb: number } {
  const started = performance.now();
  const r = spawnSync("/usr/bin/time", ["-f", "%M", cmd, ...args], { encoding: "utf8", cwd: "/" });
  const ms = performance.now() - started;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} failed: ${r.stderr}`);
  const kb = Number(r.stderr.trim().split("\n").at(-1));
  return { ms, rssMb: kb / 1024 };
}

const mb = (bytes: number) => Math.round(bytes / 1e5) / 10;
const round = (x: number) => Math.round(x * 10) / 10;

async function main() {
  const tree = await readLocalTree(CORPUS);
  const rows: (string | number)[][] = [];
  const helmRows: (string | number)[][] = [];
  const results: Record<string, unknown>[] = [];

  console.error(`cold: ${RUNS} runs of each tool per kustomization (${CASES.length} kustomizations)`);
  const cold = {
    ours: [] as number[],
    theirs: [] as number[],
    oursRss: [] as number[],
    theirsRss: [] as number[],
  };
  for (const dir of CASES) {
    for (let i = 0; i < RUNS; i++) {
      const ours = oneShot(MANAGER, ["render", "--repository", CORPUS, "--path", dir, "-o", "table"]);
      const theirs = oneShot(KUBECTL, ["kustomize", join(CORPUS, dir)]);
      cold.ours.push(ours.ms);
      cold.theirs.push(theirs.ms);
      cold.oursRss.push(ours.rssMb);
      cold.theirsRss.push(theirs.rssMb);
    }
  }

  console.error(`warm: ${WARM_RUNS} builds per kustomization in one worker`);
  const rssBefore = process.memoryUsage().rss;
  const kustomize = new Kustomize();
  const startedAt = performance.now();
  await kustomize.build(tree, "base");
  const firstBuildMs = performance.now() - startedAt;
  const warm: number[] = [];
  const perCase: Record<string, number> = {};
  for (const dir of CASES) {
    await kustomize.build(tree, dir); // this tree's first build warms its code paths
    const samples: number[] = [];
    for (let i = 0; i < WARM_RUNS; i++) {
      const t = performance.now();
      await kustomize.build(tree, dir);
      samples.push(performance.now() - t);
    }
    perCase[dir] = summarize(samples).p50;
    warm.push(...samples);
  }
  const rssAfter = process.memoryUsage().rss;
  kustomize.close();

  // Plain YAML: 1,000 objects in 100 files.
  const plain = new Map<string, Uint8Array>();
  for (let f = 0; f < 100; f++) {
    const docs = Array.from(
      { length: 10 },
      (_, i) =>
        `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-${f}-${i}\ndata:\n  key: value-${i}\n`,
    );
    plain.set(`deploy/f${String(f).padStart(3, "0")}.yaml`, new TextEncoder().encode(docs.join("---\n")));
  }
  const plainSamples: number[] = [];
  for (let i = 0; i < 20; i++) {
    const t = performance.now();
    renderPlainYaml(plain, "deploy");
    plainSamples.push(performance.now() - t);
  }

  // Helm, against the pinned helm binary.
  const helmBinary = cachedBinary(HELM);
  if (!helmBinary) throw new Error("the pinned helm binary is missing: run `deno task testenv:build helm`");
  console.error(`helm cold: ${RUNS} runs of each tool per chart (${HELM_CASES.length} charts)`);
  const helmCold = {
    ours: [] as number[],
    theirs: [] as number[],
    oursRss: [] as number[],
    theirsRss: [] as number[],
  };
  for (const chart of HELM_CASES) {
    for (let i = 0; i < RUNS; i++) {
      const ours = oneShot(MANAGER, [
        "render",
        "--repository",
        HELM_CORPUS,
        "--path",
        chart,
        "--render",
        "helm",
        "--release-name",
        "rel",
        "-o",
        "table",
      ]);
      const theirs = oneShot(helmBinary, [
        "template",
        "rel",
        join(HELM_CORPUS, chart),
        "--include-crds",
        "--skip-tests",
        "--kube-version",
        DEFAULT_KUBE_VERSION,
      ]);
      helmCold.ours.push(ours.ms);
      helmCold.theirs.push(theirs.ms);
      helmCold.oursRss.push(ours.rssMb);
      helmCold.theirsRss.push(theirs.rssMb);
    }
  }
  console.error(`helm warm: ${WARM_RUNS} renders per chart in one worker`);
  const helmTree = await readLocalTree(HELM_CORPUS);
  const helm = new Helm();
  const helmRssBefore = process.memoryUsage().rss;
  const helmStarted = performance.now();
  await helm.template({ chart: chartFromTree(helmTree, "webapp"), releaseName: "rel", namespace: "default" });
  const helmFirstMs = performance.now() - helmStarted;
  const helmWarm: number[] = [];
  for (const chart of HELM_CASES) {
    const input = { chart: chartFromTree(helmTree, chart), releaseName: "rel", namespace: "default" };
    await helm.template(input);
    for (let i = 0; i < WARM_RUNS; i++) {
      const t = performance.now();
      await helm.template(input);
      helmWarm.push(performance.now() - t);
    }
  }
  const helmRssAfter = process.memoryUsage().rss;
  helm.close();

  const c = { ours: summarize(cold.ours), theirs: summarize(cold.theirs) };
  const w = summarize(warm);
  rows.push(
    ["kustomize, cold (one process per render)", c.ours.p50, c.theirs.p50, round(c.ours.p50 / c.theirs.p50)],
    ["kustomize, warm (p50 over all builds)", w.p50, c.theirs.p50, round(w.p50 / c.theirs.p50)],
    ["kustomize, warm (p95)", w.p95, c.theirs.p95, round(w.p95 / c.theirs.p95)],
    [
      "peak RSS of a one-shot render, MB",
      round(summarize(cold.oursRss).p50),
      round(summarize(cold.theirsRss).p50),
      round(summarize(cold.oursRss).p50 / summarize(cold.theirsRss).p50),
    ],
    ["plain YAML, 1,000 objects (p50 ms)", summarize(plainSamples).p50, "-", "-"],
  );
  const hc = { ours: summarize(helmCold.ours), theirs: summarize(helmCold.theirs) };
  const hw = summarize(helmWarm);
  const hRss = { ours: summarize(helmCold.oursRss), theirs: summarize(helmCold.theirsRss) };
  helmRows.push(
    ["helm, cold (one process per render)", hc.ours.p50, hc.theirs.p50, round(hc.ours.p50 / hc.theirs.p50)],
    ["helm, warm (p50 over all renders)", hw.p50, hc.theirs.p50, round(hw.p50 / hc.theirs.p50)],
    ["helm, warm (p95)", hw.p95, hc.theirs.p95, round(hw.p95 / hc.theirs.p95)],
    [
      "peak RSS of a one-shot helm render, MB",
      round(hRss.ours.p50),
      round(hRss.theirs.p50),
      round(hRss.ours.p50 / hRss.theirs.p50),
    ],
  );
  results.push({
    machine: { cpus: cpus().length, loadavg: loadavg() },
    runs: RUNS,
    warmRuns: WARM_RUNS,
    cold: {
      gitsync: c.ours,
      kubectl: c.theirs,
      rssMb: { gitsync: summarize(cold.oursRss), kubectl: summarize(cold.theirsRss) },
    },
    warm: { all: w, p50PerKustomization: perCase, firstBuildMs: round(firstBuildMs) },
    memory: { rssBeforeMb: mb(rssBefore), rssAfterWarmMb: mb(rssAfter) },
    plainYaml1000: summarize(plainSamples),
    helm: {
      cold: { gitsync: hc.ours, helm: hc.theirs, rssMb: { gitsync: hRss.ours, helm: hRss.theirs } },
      warm: { all: hw, firstRenderMs: round(helmFirstMs) },
      memory: { rssBeforeMb: mb(helmRssBefore), rssAfterWarmMb: mb(helmRssAfter) },
    },
  });
  console.log(formatTable(["measure (ms unless noted)", "gitsync", "kubectl kustomize", "ratio"], rows));
  console.log(
    `first build in a fresh worker (start, instantiate, build): ${round(firstBuildMs)} ms; ` +
      `RSS ${mb(rssBefore)} MB before the worker, ${mb(rssAfter)} MB after the warm runs`,
  );
  console.log(formatTable(["measure (ms unless noted)", "gitsync", "helm template", "ratio"], helmRows));
  console.log(
    `first Helm render in a fresh worker (start, instantiate, render): ${round(helmFirstMs)} ms; ` +
      `RSS ${mb(helmRssBefore)} MB before the worker, ${mb(helmRssAfter)} MB after the warm runs`,
  );
  mkdirSync(join(ROOT, ".cache", "bench"), { recursive: true });
  writeFileSync(join(ROOT, ".cache", "bench", "gitsync-render.json"), JSON.stringify(results[0], null, 2));
  console.error("figures written to .cache/bench/gitsync-render.json");
}

await main();
