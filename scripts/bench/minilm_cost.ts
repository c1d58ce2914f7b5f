/**
 * What builtin-minilm costs a search, and what its memory is: CPU per query embedding by token count
 * (a query runs alone, padded to nothing), a query's wait behind a backlog batch in flight, and the
 * process's RSS after loading, after queries and after batched turns, for onnxruntime session options
 * that bear on memory (enableCpuMemArena, enableMemPattern). Each variant runs in its own process (the
 * native binding loads once per process); run with bun, as the compiled server is.
 *
 *   node_modules/.bin/bun scripts/bench/minilm_cost.ts
 */
import { spawnSync } from "node:child_process";
import type * as Ort from "onnxruntime-web/wasm";
import { MINILM_FILES, miniLMAsset } from "../../server/memsvc/embeddings/minilm_assets.ts";
import { int8Gathers } from "../../server/memsvc/embeddings/minilm_graph.ts";
import { loadNative, type ModelRuntime } from "../../server/memsvc/embeddings/minilm_runtime.ts";
import { MiniLMEmbedder } from "../../server/memsvc/embeddings/minilm.ts";
import { WordPieceTokenizer } from "../../server/memsvc/embeddings/wordpiece.ts";
import { conversationSet, DEFAULT_SET } from "./conversations.ts";
import { procMemory } from "./proc_stat.ts";
import { table } from "./table.ts";

const VARIANTS: Record<string, Record<string, unknown>> = {
  "default (arena on, pattern on)": {},
  "enableCpuMemArena false": { enableCpuMemArena: false },
  "enableMemPattern false": { enableMemPattern: false },
  "both false": { enableCpuMemArena: false, enableMemPattern: false },
  "prepacking off": { extra: { session: { disable_prepacking: "1" } } },
  "graphOptimizationLevel basic": { graphOptimizationLevel: "basic" },
};
const TOKENS = [8, 16, 32, 64, 128];

const rssMb = () => procMemory("self").rssMb;
const cpuMs = (since: NodeJS.CpuUsage) => {
  const c = process.cpuUsage(since);
  return (c.user + c.system) / 1000;
};
const gc = () => (globalThis as { Bun?: { gc(force: boolean): void } }).Bun?.gc(true);

async function variant(name: string) {
  const ort = await import("onnxruntime-web/wasm") as typeof Ort;
  const start = rssMb();
  const model = int8Gathers(await miniLMAsset(MINILM_FILES.model)).model;
  gc();
  const graph = rssMb();
  const runtime = (await loadNative(model, ort, VARIANTS[name]))!;
  const tokenizer = new WordPieceTokenizer(new TextDecoder().decode(await miniLMAsset(MINILM_FILES.vocab)));
  gc();
  const loaded = rssMb();
  const set = conversationSet({ ...DEFAULT_SET, chats: 1 });
  const turns = set.chats[0]!.sessions.flatMap((s) => s.turns.map((t) => t.text));
  const words = turns.join(" ").split(/\s+/);
  const once = (ids: number[][]) => {
    const rows = ids.length, width = Math.max(...ids.map((x) => x.length));
    const flat = new BigInt64Array(rows * width), mask = new BigInt64Array(rows * width);
    ids.forEach((x, r) =>
      x.forEach((t, c) => ((flat[r * width + c] = BigInt(t)), (mask[r * width + c] = 1n)))
    );
    return runtime.run(flat, mask, new BigInt64Array(rows * width), rows, width);
  };
  const cpu: Record<number, number> = {};
  for (const n of TOKENS) {
    const ids = tokenizer.encode(words.slice(0, n * 2).join(" "), n);
    await once([ids]);
    const since = process.cpuUsage();
    const reps = 40;
    for (let i = 0; i < reps; i++) await once([ids]);
    cpu[n] = cpuMs(since) / reps;
  }
  const afterQueries = rssMb();
  await turnBatches(runtime, tokenizer, turns.slice(0, 256));
  const afterTurns = rssMb();
  gc();
  await new Promise((r) => setTimeout(r, 500));
  const afterGc = rssMb();
  return { start, graph, loaded, cpu, afterQueries, afterTurns, afterGc };
}

/** 256 turns in batches of 8, as the vector backlog embeds them. */
async function turnBatches(runtime: ModelRuntime, tokenizer: WordPieceTokenizer, turns: string[]) {
  for (let i = 0; i < turns.length; i += 8) {
    const ids = turns.slice(i, i + 8).map((t) => tokenizer.encode(t, 256));
    const rows = ids.length, width = Math.max(...ids.map((x) => x.length));
    const flat = new BigInt64Array(rows * width), mask = new BigInt64Array(rows * width);
    ids.forEach((x, r) =>
      x.forEach((t, c) => ((flat[r * width + c] = BigInt(t)), (mask[r * width + c] = 1n)))
    );
    await runtime.run(flat, mask, new BigInt64Array(rows * width), rows, width);
  }
}

/** A query's wall time alone, and while 64 turns are being embedded (they share one run queue). */
async function queueing() {
  const embedder = new MiniLMEmbedder({ runtime: "native" });
  await embedder.load();
  const set = conversationSet({ ...DEFAULT_SET, chats: 1 });
  const turns = set.chats[0]!.sessions.flatMap((s) => s.turns.map((t) => t.text)).slice(0, 64);
  const q = set.questions[0]!.question;
  const alone: number[] = [], behind: number[] = [];
  for (let i = 0; i < 20; i++) {
    let t = performance.now();
    await embedder.embed([q]);
    alone.push(performance.now() - t);
    const batch = embedder.embed(turns);
    await new Promise((r) => setTimeout(r, 5));
    t = performance.now();
    await embedder.embed([q]);
    behind.push(performance.now() - t);
    await batch;
  }
  const p50 = (xs: number[]) => xs.sort((a, b) => a - b)[xs.length >> 1]!;
  return { alone: p50(alone), behind: p50(behind) };
}

if (import.meta.main) {
  const at = process.argv.indexOf("--variant");
  if (at > 0) console.log(JSON.stringify(await variant(process.argv[at + 1]!)));
  else if (process.argv.includes("--queueing")) console.log(JSON.stringify(await queueing()));
  else {
    const child = (args: string[]) => {
      const r = spawnSync(process.execPath, [process.argv[1]!, ...args], { encoding: "utf8" });
      if (r.status !== 0) throw new Error(r.stderr);
      return JSON.parse(r.stdout.trim().split("\n").at(-1)!);
    };
    const rows = Object.keys(VARIANTS).map((name) => {
      const f = child(["--variant", name]);
      return [
        name,
        ...[f.start, f.graph, f.loaded, f.afterQueries, f.afterTurns, f.afterGc].map((x: number) =>
          x.toFixed(0)
        ),
        TOKENS.map((n) => f.cpu[n].toFixed(1)).join(" / "),
      ];
    });
    console.log(
      table([
        "session options",
        "RSS start",
        "model read",
        "session",
        "after queries",
        "after 256 turns",
        "after gc",
        `CPU ms per query at ${TOKENS.join(" / ")} tokens`,
      ], rows),
    );
    const q = child(["--queueing"]);
    console.log(
      `a query's embedding, p50: ${q.alone.toFixed(1)} ms alone, ${
        q.behind.toFixed(1)
      } ms while 64 turns embed (it waits for the batch in flight)`,
    );
  }
}
