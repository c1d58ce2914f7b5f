/**
 * Peer: mem0ai's open-source TypeScript library (see mem0_worker.ts for its configuration). It
 * has no server, so its figures are in-process library calls with no transport: a lower bound
 * that favours it against memsvc's HTTP round trips.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { ROOT } from "../../../test/harness/binary.ts";
import type { LatencySummary, LoadResult } from "../stats.ts";

export interface Mem0Peer {
  add(store: string, texts: string[], concurrency: number): Promise<LoadResult>;
  /** Latency of `queries` one at a time, and the texts each returned. */
  search(
    store: string,
    queries: string[],
    limit: number,
  ): Promise<{ latency: LatencySummary; results: string[][] }>;
  close(): Promise<void>;
}

/** Bundles the worker for node with esbuild (mem0ai and its dependencies stay in node_modules). */
async function bundle(): Promise<string> {
  const out = join(ROOT, ".cache", "bench", "mem0_worker.mjs");
  mkdirSync(join(ROOT, ".cache", "bench"), { recursive: true });
  const esbuild = join(ROOT, "node_modules", ".bin", "esbuild");
  await new Promise<void>((resolve, reject) => {
    const child = spawn(esbuild, [
      join(ROOT, "scripts", "bench", "peers", "mem0_worker.ts"),
      "--bundle",
      "--platform=node",
      "--format=esm",
      "--packages=external",
      "--log-level=warning",
      `--outfile=${out}`,
    ], { stdio: ["ignore", "inherit", "inherit"] });
    child.on("error", reject);
    child.on("close", (code) => code === 0 ? resolve() : reject(new Error(`esbuild exited ${code}`)));
  });
  return out;
}

export async function startMem0(): Promise<Mem0Peer> {
  const worker = await bundle();
  const child: ChildProcess = spawn("node", [worker], {
    cwd: ROOT,
    // MEM0_TELEMETRY=false: no usage events to mem0's analytics endpoint from a benchmark.
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: process.env.HOME ?? "/tmp",
      MEM0_TELEMETRY: "false",
    },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr!.on("data", (d) => (stderr += d));
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const request = async <T>(req: unknown): Promise<T> => {
    child.stdin!.write(JSON.stringify(req) + "\n");
    const next = await lines.next();
    if (next.done) throw new Error(`mem0 worker exited:\n${stderr.slice(-2000)}`);
    const answer = JSON.parse(next.value) as { ok: boolean; value?: T; error?: string };
    if (!answer.ok) throw new Error(`mem0: ${answer.error}`);
    return answer.value!;
  };
  return {
    add: (store, texts, concurrency) => request({ op: "add", store, texts, concurrency }),
    search: (store, queries, limit) => request({ op: "search", store, queries, limit }),
    async close() {
      child.stdin!.end();
      await new Promise((resolve) => child.exitCode !== null ? resolve(null) : child.on("close", resolve));
    },
  };
}
