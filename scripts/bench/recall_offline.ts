/**
 * Conversational recall in process, for tuning ranking: the search pipeline of memsvc's hybrid search
 * (keyword_index.ts's BM25F with session context and neighbour lending, the built-in hashing
 * embedder's cosine, fusion.ts, the near-duplicate collapse) rebuilt over one index per chat, with no
 * server and no database, so a variant's figure takes seconds. It mirrors the server's ranking for
 * a fresh load (every entry confidence 1, no cold entries); recall.ts through the real API is the check.
 *
 *   deno run -A scripts/bench/recall_offline.ts --seed 7 --chats 8          # tune on another seed
 *   deno run -A scripts/bench/recall_offline.ts --seed 7 --chats 8 --sweep  # one parameter at a time
 *   deno run -A scripts/bench/recall_offline.ts --embedder builtin-static   # its vectors and fusion
 *   deno run -A scripts/bench/recall_offline.ts --no-expansion             # without query expansion
 *   deno run -A scripts/bench/recall_offline.ts --seed 7 --misses          # questions missed at 5, why
 *
 * Tune on another seed and keep the default set (seed 25) as the held-out check. The harness gave the
 * server's figures to the third decimal on the default set's first 4 chats (hybrid R@5 0.622, R@10 0.721).
 */
import { FullTextIndex, type ParsedQuery, parseQuery } from "../../internal/fulltext/mod.ts";
import { cosine, embedText, tokens } from "../../server/memsvc/embeddings/mod.ts";
import { embedStatic, loadStaticModel } from "../../server/memsvc/embeddings/static_minilm.ts";
import { parseDateWords } from "../../server/memsvc/memory/date_words.ts";
import { fuse, type Fusion, HASH_FUSION, STATIC_FUSION } from "../../server/memsvc/memory/fusion.ts";
import { expandQuery, loadNeighbours } from "../../server/memsvc/memory/query_expansion.ts";
import { COLLAPSE_JACCARD } from "../../server/memsvc/memory/search.ts";
import {
  EXPANSION_RADIUS,
  KEYWORD_FIELDS,
  KEYWORD_OPTIONS,
  NEIGHBOUR_LEND,
} from "../../server/memsvc/memory/keyword_index.ts";
import { type ConversationSet, conversationSet, DEFAULT_SET } from "./conversations.ts";
import { table } from "./table.ts";

export interface Params {
  fields: Record<string, { weight: number; phrases?: boolean; excludable?: boolean }>;
  k1?: number;
  b?: number;
  radius: number;
  lend: number;
  fusion: Fusion;
  /**
   * Rewrites the keyword tier's parsed query, given the blend's expansion weight (the server:
   * query_expansion.ts's table, when built).
   */
  expand?: (q: ParsedQuery, weight: number) => ParsedQuery;
  /** Share of a vector hit's cosine its session neighbours (one a side) receive; not in the server (it lowered recall). */
  vectorLend?: number;
  /** The vector tier's embedder (default: the built-in hashing one). */
  embed?: (text: string) => Float32Array;
}

export const CURRENT: Params = {
  fields: KEYWORD_FIELDS,
  ...KEYWORD_OPTIONS,
  radius: EXPANSION_RADIUS,
  lend: NEIGHBOUR_LEND,
  fusion: HASH_FUSION,
};

const LIMIT = 10, FETCH = 30;

interface Chat {
  keys: string[];
  texts: string[];
  /** What recall.ts indexes as tags: source_type "chat" and metadata { role, turn, date }. */
  tags: string[];
  /** Position of each turn in its session, and the session's first and last position. */
  session: Int32Array;
  vectors: Float32Array[];
  words: Set<string>[];
}

export function prepare(set: ConversationSet, embed = embedText): Map<string, Chat> {
  const out = new Map<string, Chat>();
  for (const c of set.chats) {
    const turns = c.sessions.flatMap((s, si) => s.turns.map((t) => ({ ...t, si, date: s.date })));
    out.set(c.id, {
      keys: turns.map((t) => t.key),
      texts: turns.map((t) => t.text),
      tags: turns.map((t) => ["chat", t.role, t.key, t.date].join(" ")),
      session: Int32Array.from(turns.map((t) => t.si)),
      vectors: turns.map((t) => embed(t.text)),
      words: turns.map((t) => new Set(tokens(t.text))),
    });
  }
  return out;
}

function neighbours(chat: Chat, i: number, radius: number): number[] {
  const out: number[] = [];
  for (let d = 1; d <= radius; d++) {
    if (i - d >= 0 && chat.session[i - d] === chat.session[i]) out.push(i - d);
    if (i + d < chat.keys.length && chat.session[i + d] === chat.session[i]) out.push(i + d);
  }
  return out;
}

function buildIndex(chat: Chat, p: Params) {
  const index = new FullTextIndex(p.fields, { k1: p.k1, b: p.b });
  chat.keys.forEach((key, i) => {
    const context = neighbours(chat, i, p.radius).map((n) => chat.texts[n]).join(" ");
    index.add(key, { content: chat.texts[i]!, context, tags: chat.tags[i]! }, undefined);
  });
  return index;
}

export interface Figures {
  r5: number;
  r10: number;
  byKind: Record<string, [number, number, number]>;
}

/** A question hybrid search missed in its top 5, with what it ranked instead (`--misses`). */
export interface Miss {
  kind: string;
  question: string;
  answers: string[];
  top: string[];
}

export function evaluate(
  set: ConversationSet,
  p: Params,
  prepared = prepare(set),
  mode = "hybrid",
  misses?: Miss[],
): Figures {
  const indexes = new Map([...prepared].map(([id, chat]) => [id, buildIndex(chat, p)]));
  const byKind: Record<string, [number, number, number]> = {};
  let r5 = 0, r10 = 0;
  const now = new Date();
  for (const q of set.questions) {
    const chat = prepared.get(q.chat)!;
    const index = indexes.get(q.chat)!;
    const dated = parseDateWords(q.question, now);
    const text = /\w/.test(dated.rest) ? dated.rest : q.question;
    const at = new Map(chat.keys.map((k, i) => [k, i]));
    // Keyword tier (KeywordIndex.search).
    const parsed = parseQuery(text);
    const hits = index.search(p.expand ? p.expand(parsed, p.fusion.expansion) : parsed, FETCH * 2);
    const scores = new Map(hits.map((h) => [h.id, h.score]));
    const lent = new Map<string, number>();
    for (const h of hits) {
      for (const n of neighbours(chat, at.get(h.id)!, 1)) {
        const k = chat.keys[n]!;
        lent.set(k, Math.max(lent.get(k) ?? 0, p.lend * h.score));
      }
    }
    for (const [id, bonus] of lent) scores.set(id, (scores.get(id) ?? 0) + bonus);
    const keyword = [...scores].map(([id, score]) => ({ id, score }))
      .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1)).slice(0, FETCH);
    // Vector tier: exact cosine.
    const qv = (p.embed ?? embedText)(text);
    let vector = chat.vectors.map((v, i) => ({ id: chat.keys[i]!, score: cosine(qv, v) }))
      .sort((a, b) => b.score - a.score).slice(0, FETCH);
    if (p.vectorLend) {
      const cos = new Map(vector.map((r) => [r.id, r.score]));
      const lentV = new Map<string, number>();
      for (const r of vector) {
        for (const n of neighbours(chat, at.get(r.id)!, 1)) {
          const k = chat.keys[n]!;
          lentV.set(k, Math.max(lentV.get(k) ?? 0, p.vectorLend * r.score));
        }
      }
      for (const [id, bonus] of lentV) cos.set(id, Math.max(cos.get(id) ?? 0, bonus));
      vector = [...cos].map(([id, score]) => ({ id, score }));
    }
    const tiers = new Map<string, { k?: number; v?: number }>();
    if (mode !== "vector") {
      const max = Math.max(0, ...keyword.map((r) => r.score));
      for (const r of keyword) tiers.set(r.id, { k: max > 0 ? r.score / max : 0 });
    }
    if (mode !== "keyword") {
      for (const r of vector) {
        const s = tiers.get(r.id) ?? {};
        s.v = Math.max(0, Math.min(1, r.score));
        tiers.set(r.id, s);
      }
    }
    const fused = fuse(tiers, p.fusion, {
      keyword: mode !== "vector" && keyword.length > 0,
      vector: mode !== "keyword" && vector.length > 0,
    }).sort((a, b) => b.fused - a.fused || (a.id < b.id ? -1 : 1));
    // Near-duplicate collapse (search.ts #top); every entry's confidence is 1.
    const kept: number[] = [];
    for (const c of fused) {
      if (kept.length >= LIMIT) break;
      const i = at.get(c.id)!;
      const w = chat.words[i]!;
      if (
        !kept.some((j) => chat.texts[j] === chat.texts[i] || jaccard(chat.words[j]!, w) >= COLLAPSE_JACCARD)
      ) {
        kept.push(i);
      }
    }
    const rank = kept.findIndex((i) => q.answers.includes(chat.keys[i]!));
    if (misses && (rank < 0 || rank >= 5)) {
      misses.push({
        kind: q.kind,
        question: q.question,
        answers: q.answers.map((a) => chat.texts[at.get(a)!]!),
        top: kept.slice(0, 5).map((i) => chat.texts[i]!),
      });
    }
    const k = byKind[q.kind] ??= [0, 0, 0];
    k[2]++;
    if (rank >= 0 && rank < 5) (r5++, k[0]++);
    if (rank >= 0) (r10++, k[1]++);
  }
  const n = set.questions.length;
  return { r5: r5 / n, r10: r10 / n, byKind };
}

function jaccard(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 && b.size === 0) return 1;
  let shared = 0;
  for (const w of a) if (b.has(w)) shared++;
  return shared / (a.size + b.size - shared);
}

const r3 = (x: number) => x.toFixed(3);
export function row(name: string, f: Figures): string[] {
  return [
    name,
    r3(f.r5),
    r3(f.r10),
    ...Object.keys(f.byKind).sort().map((k) => {
      const [a, b, n] = f.byKind[k]!;
      return `${r3(a / n)}/${r3(b / n)}`;
    }),
  ];
}

if (import.meta.main) {
  const arg = (name: string) => {
    const at = process.argv.indexOf(`--${name}`);
    return at > 0 ? process.argv[at + 1] : undefined;
  };
  const set = conversationSet({
    ...DEFAULT_SET,
    chats: Number(arg("chats") ?? DEFAULT_SET.chats),
    seed: Number(arg("seed") ?? DEFAULT_SET.seed),
  });
  const t = performance.now();
  const neighbours = await loadNeighbours();
  let params: Params = {
    ...CURRENT,
    expand: process.argv.includes("--no-expansion") ? undefined : (q, w) => expandQuery(q, neighbours, w),
  };
  if (arg("embedder") === "builtin-static") {
    const model = await loadStaticModel();
    params = {
      ...params,
      embed: (text) => embedStatic(model.table, model.tokenizer, text),
      fusion: STATIC_FUSION,
    };
  } else if (arg("embedder")) throw new Error("--embedder: builtin-static, or none for the hashing embedder");
  if (process.argv.includes("--sweep")) {
    sweep(set, params);
    process.exit(0);
  }
  const prepared = prepare(set, params.embed);
  if (process.argv.includes("--misses")) {
    const misses: Miss[] = [];
    evaluate(set, params, prepared, "hybrid", misses);
    for (const m of misses.slice(0, Number(arg("misses-n") ?? 30))) {
      console.log(`[${m.kind}] ${m.question}\n  answer: ${m.answers.join(" | ")}`);
      for (const t of m.top) console.log(`    - ${t}`);
    }
    console.log(`${misses.length} missed at 5 of ${set.questions.length}`);
    process.exit(0);
  }
  const rows: string[][] = [];
  for (const mode of ["keyword", "vector", "hybrid"]) {
    rows.push(row(mode, evaluate(set, params, prepared, mode)));
  }
  const kinds = Object.keys(evaluate(set, params, prepared).byKind).sort();
  console.log(
    `${set.chats.length} chats, ${set.questions.length} questions, seed ${arg("seed") ?? DEFAULT_SET.seed}`,
  );
  console.log(table(["tier", "R@5", "R@10", ...kinds.map((k) => `${k} R@5/10`)], rows));
  console.log(`${((performance.now() - t) / 1000).toFixed(1)} s`);
}

/** One parameter at a time around `base` (coordinate sweep), on the set given. */
export function sweep(set: ConversationSet, CURRENT: Params) {
  const prepared = prepare(set, CURRENT.embed);
  const base = evaluate(set, CURRENT, prepared);
  const rows: string[][] = [row("current", base)];
  const field = (name: string, weight: number): Params => ({
    ...CURRENT,
    fields: { ...CURRENT.fields, [name]: { ...CURRENT.fields[name as keyof typeof CURRENT.fields], weight } },
  });
  const variants: [string, Params][] = [
    ...[0.5, 0.9, 1.6, 2.0, 3.0].map((k1): [string, Params] => [`k1 ${k1}`, { ...CURRENT, k1 }]),
    ...[0.2, 0.4, 0.6, 0.9].map((b): [string, Params] => [`b ${b}`, { ...CURRENT, b }]),
    ...[0.3, 0.4, 0.6, 0.8].map((w): [string, Params] => [`context ${w}`, field("context", w)]),
    ...[0, 0.1, 0.5].map((w): [string, Params] => [`tags ${w}`, field("tags", w)]),
    ...[0, 0.2, 0.4, 0.5].map((lend): [string, Params] => [`lend ${lend}`, { ...CURRENT, lend }]),
    ...[1, 3].map((radius): [string, Params] => [`radius ${radius}`, { ...CURRENT, radius }]),
    ...[0.5, 0.7, 0.8].map((w): [string, Params] => [`linear k ${w}`, {
      ...CURRENT,
      fusion: { ...CURRENT.fusion, keyword: w, vector: 1 - w },
    }]),
    ...[0.3, 0.85, 1.2, 1.5].map((expansion): [string, Params] => [`expansion ${expansion}`, {
      ...CURRENT,
      fusion: { ...CURRENT.fusion, expansion },
    }]),
    ...[0.2, 0.3, 0.5].map((vectorLend): [string, Params] => [`vector lend ${vectorLend}`, {
      ...CURRENT,
      vectorLend,
    }]),
    ...[0.1, 0.3].map((floor): [string, Params] => [`floor ${floor}`, {
      ...CURRENT,
      fusion: { ...CURRENT.fusion, floor },
    }]),
    ...[0.5, 0.6, 0.7, 0.8].map((w): [string, Params] => [`zscore k ${w}`, {
      ...CURRENT,
      fusion: { ...CURRENT.fusion, kind: "zscore", keyword: w, vector: 1 - w },
    }]),
  ];
  for (const [name, p] of variants) rows.push(row(name, evaluate(set, p, prepared)));
  const kinds = Object.keys(base.byKind).sort();
  console.log(table(["variant", "R@5", "R@10", ...kinds.map((k) => `${k} R@5/10`)], rows));
}
