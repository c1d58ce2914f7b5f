/**
 * The built-in embedders in process, on the conversational set's own turns and questions: batched
 * throughput (batches of 128, as the vector backlog embeds) and the latency of embedding one query (what
 * every hybrid or vector search pays before it scans). The first MiniLM call, which loads the model, is
 * timed on its own. MiniLM is measured on each runtime it has here (native, wasm). Beside wall time,
 * CPU time (process.cpuUsage): on a loaded machine it is the figure that compares variants.
 *
 *   deno run -A scripts/bench/embedders.ts            # 512 turns, 100 questions
 *   deno run -A scripts/bench/embedders.ts --turns 256
 *
 * bench:memsvc runs it in its `recall` phase.
 */
import {
  BgeSmallEmbedder,
  BuiltinEmbedder,
  type Embedder,
  MiniLMEmbedder,
} from "../../server/memsvc/embeddings/mod.ts";
import { conversationSet, DEFAULT_SET } from "./conversations.ts";
import { summarize } from "./stats.ts";
import { table } from "./table.ts";

export interface EmbedderFigures {
  id: string;
  /** The runtime, for MiniLM (native or wasm). */
  runtime?: string;
  /** The first call (model load and one text), ms. */
  firstMs: number;
  turnsPerSecond: number;
  queryP50Ms: number;
  queryP95Ms: number;
  /** CPU time per query (this process, all threads), ms. */
  queryCpuP50Ms: number;
  queryCpuP95Ms: number;
  /** Turns per second of this process's CPU time. */
  turnsPerCpuSecond: number;
}

const BATCH = 128;

export async function measureEmbedder(
  embedder: Embedder,
  turns = 512,
  queries = 100,
): Promise<EmbedderFigures> {
  const set = conversationSet({ ...DEFAULT_SET, chats: 1 });
  const texts = set.chats[0]!.sessions.flatMap((s) => s.turns.map((t) => t.text)).slice(0, turns);
  const questions = set.questions.map((q) => q.question).slice(0, queries);
  const cpuMs = (since: NodeJS.CpuUsage) => {
    const c = process.cpuUsage(since);
    return (c.user + c.system) / 1000;
  };
  let t = performance.now();
  const runtime = embedder instanceof MiniLMEmbedder ? await embedder.load() : undefined;
  await embedder.embed([questions[0]!]);
  const firstMs = performance.now() - t;
  t = performance.now();
  let cpu = process.cpuUsage();
  for (let i = 0; i < texts.length; i += BATCH) await embedder.embed(texts.slice(i, i + BATCH));
  const turnsPerSecond = texts.length / ((performance.now() - t) / 1000);
  const turnsPerCpuSecond = texts.length / (cpuMs(cpu) / 1000);
  const latencies: number[] = [];
  const cpus: number[] = [];
  for (const q of questions) {
    t = performance.now();
    cpu = process.cpuUsage();
    await (embedder.embedQuery ? embedder.embedQuery(q) : embedder.embed([q]));
    latencies.push(performance.now() - t);
    cpus.push(cpuMs(cpu));
  }
  const lat = summarize(latencies);
  const cpuLat = summarize(cpus);
  return {
    id: embedder.id,
    runtime,
    firstMs: Math.round(firstMs),
    turnsPerSecond: Math.round(turnsPerSecond),
    queryP50Ms: lat.p50,
    queryP95Ms: lat.p95,
    queryCpuP50Ms: cpuLat.p50,
    queryCpuP95Ms: cpuLat.p95,
    turnsPerCpuSecond: Math.round(turnsPerCpuSecond),
  };
}

export function embedderTable(rows: EmbedderFigures[]): string {
  return table(
    [
      "embedder",
      "first call ms",
      "turns/s (batches of 128)",
      "turns/CPU-s",
      "query p50 ms",
      "query p95 ms",
      "query CPU p50 / p95 ms",
    ],
    rows.map((r) => [
      r.runtime ? `${r.id} (${r.runtime})` : r.id,
      r.firstMs,
      r.turnsPerSecond,
      r.turnsPerCpuSecond,
      r.queryP50Ms,
      r.queryP95Ms,
      `${r.queryCpuP50Ms} / ${r.queryCpuP95Ms}`,
    ]),
  );
}

if (import.meta.main) {
  const at = process.argv.indexOf("--turns");
  const turns = at > 0 ? Number(process.argv[at + 1]) : 512;
  const rows = [];
  const embedders = [
    new BuiltinEmbedder(),
    new MiniLMEmbedder({ runtime: "native" }),
    new MiniLMEmbedder({ runtime: "wasm" }),
    new BgeSmallEmbedder({ runtime: "native" }),
  ];
  for (const e of embedders) {
    try {
      rows.push(await measureEmbedder(e, turns));
    } catch (err) {
      console.error(`${e.id}: ${(err as Error).message}`); // no native runtime on this platform
    }
  }
  console.log(embedderTable(rows));
}
