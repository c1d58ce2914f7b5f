/**
 * builtin-hash against builtin-static on one machine at once, for a loaded machine: the same entries
 * in two data dirs, two servers of one build, each query sent to both in turn, so both see the same
 * load. Reports per server and mode the latency and the server's CPU per search (/proc), which load
 * inflates less than wall time. The static dir is a copy of the hash one, so its start re-embeds
 * every entry (vector_backlog.recover), and the time that takes is reported too.
 *
 *   deno run -A scripts/bench/embedder_ab.ts --size=10000 [--queries=200] [--binary=dist/memsvc]
 */
import { execFileSync } from "node:child_process";
import { cpSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { binaryPath } from "../../test/harness/binary.ts";
import { memories, queries } from "./data.ts";
import { type BenchServer, exportFile, post, serverEnv, startServer } from "./memsvc_server.ts";
import { procStat } from "./proc_stat.ts";
import { summarize } from "./stats.ts";
import { table } from "./table.ts";

const flag = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const SIZE = Number(flag("size") ?? 10_000);
const QUERIES = Number(flag("queries") ?? 200);
const BINARY = flag("binary") ?? binaryPath("memsvc");
const MODES = ["hybrid", "keyword", "vector"] as const;

const cpuMs = (pid: number) => procStat(pid).cpuMs;

const work = await mkdtemp(join(tmpdir(), "memsvc-ab-"));
try {
  const hashDir = join(work, "hash"), staticDir = join(work, "static");
  // The first start creates the bench user; the entries come in by `memsvc import` (no HTTP load).
  await (await startServer({ dataDir: hashDir, binary: BINARY, embedder: "builtin-hash" })).stop();
  const file = join(work, "entries.jsonl");
  exportFile(file, memories(SIZE, 7));
  execFileSync(BINARY, ["import", file], {
    env: { ...serverEnv({ dataDir: hashDir, embedder: "builtin-hash" }), MEMSVC_LOG_LEVEL: "warn" },
    stdio: ["ignore", "ignore", "inherit"],
  });
  cpSync(hashDir, staticDir, { recursive: true });
  const servers: { hash: BenchServer; static: BenchServer } = {
    hash: await startServer({ dataDir: hashDir, binary: BINARY, embedder: "builtin-hash" }),
    static: await startServer({ dataDir: staticDir, binary: BINARY, embedder: "builtin-static" }),
  };
  try {
    for (const s of Object.values(servers)) await s.login();
    // Until the static server has re-embedded the store (its log line), timed.
    const t = performance.now();
    while (!servers.static.output().includes('"entries embedded"')) {
      if (performance.now() - t > 600_000) throw new Error("re-embedding did not finish in 10 minutes");
      await new Promise((r) => setTimeout(r, 50));
    }
    const reembedMs = Math.round(performance.now() - t);
    const qs = queries(QUERIES, 11);
    // Untimed: the JIT's lower tiers and empty caches.
    for (const q of queries(100, 13)) {
      for (const s of Object.values(servers)) {
        await post(s, "/v1/search", { query: q, namespace: "search", limit: 10 });
      }
    }
    const load = loadavg().map((x) => x.toFixed(2)).join(" ");
    const rows: (string | number)[][] = [];
    for (const mode of MODES) {
      const lat: Record<string, number[]> = { hash: [], static: [] };
      const cpu: Record<string, number> = { hash: 0, static: 0 };
      for (const q of qs) {
        for (const [name, s] of Object.entries(servers)) {
          const c = cpuMs(s.pid), w = performance.now();
          await post(s, "/v1/search", { query: q, namespace: "search", mode, limit: 10 });
          lat[name]!.push(performance.now() - w);
          cpu[name]! += cpuMs(s.pid) - c;
        }
      }
      for (const name of Object.keys(servers)) {
        const l = summarize(lat[name]!);
        rows.push([
          `${SIZE} ${mode} ${name}`,
          l.p50,
          l.p95,
          l.p99,
          Math.round(cpu[name]! / qs.length * 100) / 100,
        ]);
      }
    }
    console.log(
      `builtin-hash vs builtin-static, ${SIZE} entries, ${QUERIES} queries per mode, interleaved; load ${load}; ` +
        `static re-embedded the store in ${reembedMs} ms after its start`,
    );
    console.log(table(["server", "p50", "p95", "p99", "server CPU/search"], rows));
  } finally {
    for (const s of Object.values(servers)) await s.stop();
  }
} finally {
  await rm(work, { recursive: true, force: true });
}
