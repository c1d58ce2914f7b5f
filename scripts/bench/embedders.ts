/**
 * The built-in embedders in process, on the conversational set's own turns and questions: batched
 * throughput (batches of 128, as the vector backlog embeds) and the latency of embedding one query (what
 * every hybrid or vector search pays before it scans). The first MiniLM call, which loads the model, is
 * timed on its own.
 *
 *   deno run -A scripts/bench/embedders.ts            # 512 turns, 100 questions
 *   deno run -A scripts/bench/embedders.ts --turns 256
 *
 * bench:memsvc runs it in its `recall` phase.
 */
import { BuiltinEmbedder, type Embedder, MiniLMEmbedder } from "../../server/memsvc/embeddings/mod.ts";
import { conversationSet, DEFAULT_SET } from "./conversations.ts";
import { summarize } from "./stats.ts";
import { table } from "./table.ts";

export interface EmbedderFigures {
  id: string;
  /** The first call (model load and one text), ms. */
  firstMs: number;
  turnsPerSecond: number;
  queryP50Ms: number;
  queryP95Ms: number;
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
  let t = performance.now();
  await embedder.embed([questions[0]!]);
  const firstMs = performance.now() - t;
  t = performance.now();
  for (let i = 0; i < texts.length; i += BATCH) await embedder.embed(texts.slice(i, i + BATCH));
  const turnsPerSecond = texts.length / ((performance.now() - t) / 1000);
  const latencies: number[] = [];
  for (const q of questions) {
    t = performance.now();
    await embedder.embed([q]);
    latencies.push(performance.now() - t);
  }
  const lat = summarize(latencies);
  return {
    id: embedder.id,
    firstMs: Math.round(firstMs),
    turnsPerSecond: Math.round(turnsPerSecond),
    queryP50Ms: lat.p50,
    queryP95Ms: lat.p95,
  };
}

export function embedderTable(rows: EmbedderFigures[]): string {
  return table(
    ["embedder", "first call ms", "turns/s (batches of 128)", "query p50 ms", "query p95 ms"],
    rows.map((r) => [r.id, r.firstMs, r.turnsPerSecond, r.queryP50Ms, r.queryP95Ms]),
  );
}

if (import.meta.main) {
  const at = process.argv.indexOf("--turns");
  const turns = at > 0 ? Number(process.argv[at + 1]) : 512;
  const rows = [];
  for (const e of [new BuiltinEmbedder(), new MiniLMEmbedder()]) rows.push(await measureEmbedder(e, turns));
  console.log(embedderTable(rows));
}
