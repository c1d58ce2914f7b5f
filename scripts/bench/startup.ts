/**
 * `deno task bench:startup`: how long each of the seven binaries takes to start, for `--version` and
 * `--help`, beside `kubectl version --client` and `kubectl --help` in the same run. A CLI that scripts call
 * in loops must start at least as fast as kubectl; the target is 60 ms (median wall time) per row.
 *
 * Each round runs every command once, in the same order, so a burst of load on the machine hits all rows
 * alike; the table gives the median and the fastest of the rounds, and the machine's load average. With
 * `--baseline <dir>` the binaries in that folder (e.g. a build of main) are timed in the same rounds, for
 * before/after figures from one run. Writes the figures as JSON to .cache/bench/startup.json.
 *
 *   deno task bench:startup                          # dist/*, 21 rounds
 *   deno task bench:startup --runs 41 --baseline /tmp/dist-main
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { formatTable } from "../../internal/cli/mod.ts";
import { TOOLS } from "../lib/tools.ts";
import { summarize } from "./stats.ts";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const KUBECTL = process.env.KUBECTL ?? "kubectl";
/** The target of every row, in milliseconds (median wall time). */
export const TARGET_MS = 60;

interface Row {
  label: string;
  argv: string[];
  /** Binaries of this build run as a comparison, not against the target. */
  peer?: boolean;
}

/** Runs a command to completion; its wall time in ms. Output is discarded; a non-zero exit fails the bench. */
function timed(argv: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(argv[0]!, argv.slice(1), { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => {
      const ms = performance.now() - started;
      if (code === 0) resolve(ms);
      else reject(new Error(`${argv.join(" ")} exited ${code}: ${stderr.trim()}`));
    });
  });
}

function rowsFor(dir: string, suffix: string, peer: boolean): Row[] {
  return TOOLS.flatMap((tool) =>
    ["--version", "--help"].map((flag) => ({
      label: `${tool} ${flag}${suffix}`,
      argv: [join(dir, tool), flag],
      peer,
    }))
  );
}

async function main() {
  const { values } = parseArgs({
    options: {
      runs: { type: "string", default: "21" },
      baseline: { type: "string" },
      dist: { type: "string", default: join(ROOT, "dist") },
    },
  });
  const runs = Number(values.runs);
  if (!(runs > 0)) throw new Error("--runs must be a positive number");
  for (const tool of TOOLS) {
    for (const dir of [values.dist, values.baseline].filter((d): d is string => d !== undefined)) {
      if (!existsSync(join(dir, tool))) {
        throw new Error(`${join(dir, tool)} is missing (build it: deno task build ${tool})`);
      }
    }
  }
  const rows: Row[] = [
    ...rowsFor(values.dist, "", false),
    ...(values.baseline ? rowsFor(values.baseline, " (baseline)", true) : []),
    { label: "kubectl version --client", argv: [KUBECTL, "version", "--client"], peer: true },
    { label: "kubectl --help", argv: [KUBECTL, "--help"], peer: true },
  ];
  // One untimed round: page cache and the first mapping of each binary are not what a loop of calls pays.
  for (const row of rows) await timed(row.argv);
  const samples = rows.map(() => [] as number[]);
  for (let round = 0; round < runs; round++) {
    for (const [i, row] of rows.entries()) samples[i]!.push(await timed(row.argv));
  }
  const load = Math.round(loadavg()[0]! * 100) / 100;
  const results = rows.map((row, i) => {
    const s = summarize(samples[i]!);
    return {
      command: row.label,
      ...s,
      target: row.peer ? undefined : TARGET_MS,
      met: row.peer ? undefined : s.p50 <= TARGET_MS,
    };
  });
  process.stdout.write(
    formatTable(
      ["command", "runs", "median ms", "min ms", "p95 ms", `≤ ${TARGET_MS} ms`],
      results.map((
        r,
      ) => [r.command, r.n, r.p50, r.min, r.p95, r.met === undefined ? "-" : r.met ? "yes" : "NO"]),
    ),
  );
  console.log(`load average ${load} on ${cpus().length} CPUs; ${runs} rounds, every command once per round`);
  const out = join(ROOT, ".cache", "bench");
  mkdirSync(out, { recursive: true });
  const file = join(out, "startup.json");
  writeFileSync(
    file,
    `${
      JSON.stringify(
        {
          date: new Date().toISOString(),
          machine: { cpus: cpus().length, loadavg1m: load },
          targetMs: TARGET_MS,
          results,
        },
        null,
        2,
      )
    }\n`,
  );
  console.log(`wrote ${file}`);
  const missed = results.filter((r) => r.met === false);
  if (missed.length) console.log(`over the target: ${missed.map((r) => r.command).join(", ")}`);
}

await main();
