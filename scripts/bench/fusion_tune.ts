/**
 * Chooses hybrid search's fusion for an embedder by measurement. Loads the conversational set
 * (conversations.ts) into dist/memsvc run with MEMSVC_EMBEDDER, fetches every question's keyword and
 * vector candidates (the pool hybrid fuses: 3 × limit per tier) once, and scores fusions of them offline:
 * linear blends of max-normalised BM25 and raw cosine (with a floor for vector-only candidates) and
 * z-scored sums. The candidates' confidence prior is divided out, so the tier scores are the raw ones.
 *
 *   deno run -A scripts/bench/fusion_tune.ts --embedder builtin-minilm --chats 4
 *   deno run -A scripts/bench/fusion_tune.ts ... --save /tmp/pools.json   # keep the candidates
 *   deno run -A scripts/bench/fusion_tune.ts --load /tmp/pools.json       # score them again, no server
 */
import { readFileSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { conversationSet, DEFAULT_SET } from "./conversations.ts";
import { post, startServer } from "./memsvc_server.ts";
import { loadConversations } from "./recall.ts";
import { table } from "./table.ts";

const arg = (name: string) => {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? process.argv[at + 1] : undefined;
};
const POOL = 30;

interface Candidate {
  /** The turns the id stands for (identical texts share one entry). */
  keys: string[];
  k?: number;
  v?: number;
}

let pools: { answers: string[]; candidates: Candidate[] }[] = [];
if (arg("load")) pools = JSON.parse(readFileSync(arg("load")!, "utf8"));
else pools = await fetchPools();
if (arg("save")) writeFileSync(arg("save")!, JSON.stringify(pools));

async function fetchPools() {
  const set = conversationSet({ ...DEFAULT_SET, chats: Number(arg("chats") ?? 4) });
  const dir = await mkdtemp(join(tmpdir(), "memsvc-fusion-"));
  const server = await startServer({ dataDir: dir, embedder: arg("embedder"), binary: arg("binary") });
  const pools: { answers: string[]; candidates: Candidate[] }[] = [];
  try {
    await server.login();
    const started = performance.now();
    const { keysOf } = await loadConversations(server, set);
    type Hit = { id: string; score: number; confidence: number };
    for (const q of set.questions) {
      const tier = async (mode: string) =>
        ((await post(server, "/v1/search", {
          query: q.question,
          namespace: `conv-${q.chat}`,
          mode,
          limit: POOL,
        })) as { results: Hit[] }).results.map((r) => ({
          id: r.id,
          score: r.score / (0.9 + 0.1 * r.confidence),
        }));
      const byId = new Map<string, Candidate>();
      const get = (id: string) => byId.get(id) ?? byId.set(id, { keys: keysOf.get(id) ?? [] }).get(id)!;
      const keyword = await tier("keyword");
      const best = Math.max(0, ...keyword.map((h) => h.score));
      for (const h of keyword) get(h.id).k = best > 0 ? h.score / best : 0;
      for (const h of await tier("vector")) get(h.id).v = h.score;
      pools.push({ answers: q.answers, candidates: [...byId.values()] });
    }
    console.log(
      `${set.chats.length} chats, ${keysOf.size} turns, ${set.questions.length} questions, embedder ${
        arg("embedder") ?? "default"
      }; loaded and searched in ${((performance.now() - started) / 1000).toFixed(0)} s`,
    );
  } finally {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  }
  return pools;
}

type Fusion = (c: Candidate[]) => number[];

function recall(fusion: Fusion): [number, number] {
  let r5 = 0, r10 = 0;
  for (const p of pools) {
    const scores = fusion(p.candidates);
    const order = p.candidates.map((c, i) => ({ c, s: scores[i]! })).filter((x) => Number.isFinite(x.s))
      .sort((a, b) => b.s - a.s);
    const rank = order.findIndex((x) => x.c.keys.some((k) => p.answers.includes(k)));
    if (rank >= 0 && rank < 5) r5++;
    if (rank >= 0 && rank < 10) r10++;
  }
  return [r5 / pools.length, r10 / pools.length].map((x) => Math.round(x * 1000) / 1000) as [number, number];
}

const linear = (w: number, floor: number): Fusion => (cs) =>
  cs.map((c) => c.k === undefined && (c.v ?? 0) < floor ? -Infinity : w * (c.k ?? 0) + (1 - w) * (c.v ?? 0));

function zscores(values: (number | undefined)[]): number[] {
  const present = values.filter((v): v is number => v !== undefined);
  const mean = present.reduce((s, v) => s + v, 0) / (present.length || 1);
  const sd = Math.sqrt(present.reduce((s, v) => s + (v - mean) ** 2, 0) / (present.length || 1)) || 1;
  const min = Math.min(...present.map((v) => (v - mean) / sd));
  // A candidate a tier did not return scores as that tier's worst.
  return values.map((v) => v === undefined ? (present.length ? min : 0) : (v - mean) / sd);
}

const zsum = (w: number, floor: number): Fusion => (cs) => {
  const zk = zscores(cs.map((c) => c.k));
  const zv = zscores(cs.map((c) => c.v));
  return cs.map((c, i) =>
    c.k === undefined && (c.v ?? 0) < floor ? -Infinity : w * zk[i]! + (1 - w) * zv[i]!
  );
};

const WEIGHTS = [0.2, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8];
const rows: (string | number)[][] = [];
rows.push(["keyword only", ...recall((cs) => cs.map((c) => c.k ?? -Infinity))]);
rows.push(["vector only", ...recall((cs) => cs.map((c) => c.v ?? -Infinity))]);
for (const w of WEIGHTS) {
  for (const floor of [0, 0.2, 0.3]) {
    rows.push([`linear k ${w} / v ${(1 - w).toFixed(2)}, floor ${floor}`, ...recall(linear(w, floor))]);
  }
}
for (const w of WEIGHTS) {
  for (const floor of [0, 0.2, 0.3]) {
    rows.push([`z-scored sum, k ${w}, floor ${floor}`, ...recall(zsum(w, floor))]);
  }
}
console.log(table(["fusion", "R@5", "R@10"], rows));
