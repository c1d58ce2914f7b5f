/**
 * Conversational recall in process, for tuning ranking: the search pipeline of memsvc's hybrid search
 * (keyword_index.ts's BM25F with session context, speaker field and neighbour lending, the embedder's
 * cosine, fusion.ts, the question-turn and speaker priors, the near-duplicate collapse) rebuilt over one index per
 * chat, with no server and no database, so a variant's figure takes seconds. It mirrors the server's
 * ranking for a fresh load (every entry confidence 1, no cold entries; identical texts are not merged
 * into one entry as the store merges them); recall.ts through the real API is the check.
 *
 * It reads the same sets as recall.ts (the generated one and the public ones, public_sets.ts), the dev
 * half unless told otherwise: tune there, and report the held-back half through recall.ts once.
 *
 *   deno run -A scripts/bench/recall_offline.ts                       # dev halves, builtin-static
 *   deno run -A scripts/bench/recall_offline.ts --candidates          # issue 40's candidate methods
 *   deno run -A scripts/bench/recall_offline.ts --sweep               # one parameter at a time
 *   deno run -A scripts/bench/recall_offline.ts --sets realtalk --misses   # questions missed at 5, why
 *   deno run -A scripts/bench/recall_offline.ts --embedder builtin-hash    # or builtin-minilm (slow)
 *   deno run -A scripts/bench/recall_offline.ts --no-expansion --kinds    # without query expansion
 *   deno run -A scripts/bench/recall_offline.ts --pool                # first-stage (candidate) variants
 *   deno run -A scripts/bench/recall_offline.ts --embedder bge-small-en-v1.5   # or e5-small-v2 (model_vectors.ts)
 */
import {
  analyze,
  FullTextIndex,
  type ParsedQuery,
  parseQuery,
  STOP_WORDS,
} from "../../internal/fulltext/mod.ts";
import { cosine, embedText, MiniLMEmbedder, tokens } from "../../server/memsvc/embeddings/mod.ts";
import { readFileSync } from "node:fs";
import {
  embedStatic,
  loadStaticModel,
  readStaticTable,
} from "../../server/memsvc/embeddings/static_minilm.ts";
import { parseDateWords } from "../../server/memsvc/memory/date_words.ts";
import { BGE_SMALL_ID } from "../../server/memsvc/embeddings/bge_small.ts";
import { candidates, poolCandidates, sweepVariants } from "./recall_variants.ts";
import {
  BGE_SMALL_FUSION,
  fuse,
  type Fusion,
  HASH_FUSION,
  MINILM_FUSION,
  STATIC_FUSION,
} from "../../server/memsvc/memory/fusion.ts";
import { expandQuery, loadNeighbours } from "../../server/memsvc/memory/query_expansion.ts";
import { isQuestionTurn, QUESTION_TURN_FACTOR } from "../../server/memsvc/memory/answer_prior.ts";
import { SPEAKER_FACTOR } from "../../server/memsvc/memory/speaker_prior.ts";
import { COLLAPSE_JACCARD, DATE_BOOST } from "../../server/memsvc/memory/search.ts";
import {
  EXPANSION_RADIUS,
  KEYWORD_FIELDS,
  KEYWORD_OPTIONS,
  NEIGHBOUR_LEND,
} from "../../server/memsvc/memory/keyword_index.ts";
import type { ConversationSet } from "./conversations.ts";
import type { Half } from "./public_sets.ts";
import { cachedVectors, CANDIDATE_MODELS } from "./model_vectors.ts";
import { recallSets } from "./recall.ts";
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
  /**
   * Candidates (not in the server unless measured to help):
   * - `session`: after fusion, each turn gains `weight` × its session's score (the mean of the session's
   *   best `top` fused scores, over the best session's), then re-ranks: session retrieval, then turns.
   * - `askPenalty`: a turn that is itself a question (ends with "?") has its fused score × (1 − p); the
   *   server's is 1 − QUESTION_TURN_FACTOR (answer_prior.ts).
   * - `prf`: pseudo-relevance feedback: the `terms` stems weighing most in the first pass's `docs` best
   *   keyword hits (tf × idf, query terms left out) join the query at `weight` each.
   */
  session?: { weight: number; top: number };
  /**
   * The query's date window (date_words.ts) judged by the turn's own date (metadata `date`) instead of
   * the entry's created_at: turns outside it have their fused score divided by DATE_BOOST.
   */
  dateWindow?: boolean;
  /** The speaker (or role) as a field of its own at this weight, out of the tags. */
  speakerField?: number;
  /** The date in the tags as words too ("December 29 2023 Friday"), at this weight in a field of its own. */
  dateField?: number;
  askPenalty?: number;
  prf?: { docs: number; terms: number; weight: number };
  /** Candidates each tier contributes (default FETCH). */
  keywordFetch?: number;
  vectorFetch?: number;
  /** Every keyword candidate the vector tier did not return is scored by its exact cosine too. */
  fillCosine?: boolean;
  /**
   * Neighbour expansion: the session neighbours (`radius` a side) of the `top` best fused candidates join
   * the pool, each at `weight` × its best neighbour's fused score when that is more than it has.
   */
  neighbourExpand?: { top: number; weight: number; radius: number };
  /** At most this many keyword candidates per session (the rest of the pool from other sessions). */
  sessionCap?: number;
  /**
   * Names in the query that are speakers of the chat: `content` is the weight their stem keeps against
   * the turn's text (a turn naming Kate is mostly said to her), the speaker field matching them as a term
   * of its own at `speaker`; `strip` leaves them out of the vector tier's query; `prior` multiplies the
   * fused score of a turn said by a named speaker by 1 + prior.
   */
  speakerRoute?: { content: number; speaker: number; strip?: boolean; prior?: number; plain?: boolean };
  /**
   * The server's speaker prior (speaker_prior.ts): when the query names a speaker of the chat, the other
   * turns' fused scores × this.
   */
  speakerFactor?: number;
  /**
   * A turn that asks lends the turn after it (its answer, in the same session) `weight` × its own fused
   * score (before the ask penalty), when that is more than the answer has.
   */
  answerLend?: number;
}

export const CURRENT: Params = {
  fields: KEYWORD_FIELDS,
  ...KEYWORD_OPTIONS,
  radius: EXPANSION_RADIUS,
  lend: NEIGHBOUR_LEND,
  fusion: HASH_FUSION,
  askPenalty: 1 - QUESTION_TURN_FACTOR,
  speakerFactor: SPEAKER_FACTOR,
};

const LIMIT = 10, FETCH = 30;

interface Chat {
  keys: string[];
  texts: string[];
  /** What recall.ts indexes as tags: source_type "chat" and metadata { role or speaker, turn, date }. */
  tags: string[];
  /** Position of each turn in its session, and the session's first and last position. */
  session: Int32Array;
  vectors: Float32Array[];
  words: Set<string>[];
  speakers: string[];
  dates: string[];
  /** Stems of the chat's speakers' names (speaker routing), computed when first needed. */
  speakerStems?: Set<string>;
  /** Document frequency of each stem (for pseudo-relevance feedback), computed when first needed. */
  df?: Map<string, number>;
}

export function prepare(set: ConversationSet, embed = embedText): Map<string, Chat> {
  const out = new Map<string, Chat>();
  for (const c of set.chats) {
    const turns = c.sessions.flatMap((s, si) => s.turns.map((t) => ({ ...t, si, date: s.date })));
    out.set(c.id, {
      keys: turns.map((t) => t.key),
      texts: turns.map((t) => t.text),
      // keyword_index.ts textOf: metadata `speaker` has a field of its own, the other values are tags.
      tags: turns.map((t) => ["chat", t.role, t.key, t.date].filter((x) => x).join(" ")),
      speakers: turns.map((t) => t.speaker ?? ""),
      dates: turns.map((t) => t.date),
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

/** Pseudo-relevance feedback (Params.prf): the query plus the stems weighing most in the top docs. */
function feedback(
  query: ParsedQuery,
  top: number[],
  chat: Chat,
  prf: NonNullable<Params["prf"]>,
): ParsedQuery {
  const df = chat.df ??= (() => {
    const m = new Map<string, number>();
    for (const t of chat.texts) for (const s of new Set(analyze(t))) m.set(s, (m.get(s) ?? 0) + 1);
    return m;
  })();
  const n = chat.texts.length;
  const weight = new Map<string, number>();
  for (const i of top) {
    for (const s of analyze(chat.texts[i]!)) {
      if (query.terms.has(s) || STOP_WORDS.has(s) || s.length < 3) continue;
      weight.set(s, (weight.get(s) ?? 0) + Math.log(1 + n / (df.get(s) ?? 1)));
    }
  }
  const terms = new Map(query.terms);
  for (const [s] of [...weight].sort((a, b) => b[1] - a[1]).slice(0, prf.terms)) terms.set(s, prf.weight);
  return { ...query, terms };
}

function buildIndex(chat: Chat, p: Params) {
  const fields: Params["fields"] = { ...p.fields };
  if (p.dateField) fields.date = { weight: p.dateField };
  const index = new FullTextIndex(fields, { k1: p.k1, b: p.b });
  chat.keys.forEach((key, i) => {
    const context = neighbours(chat, i, p.radius).map((n) => chat.texts[n]).join(" ");
    index.add(key, {
      content: chat.texts[i]!,
      context,
      tags: chat.tags[i]!,
      speaker: p.speakerRoute && !p.speakerRoute.plain ? speakerTerms(chat.speakers[i]!) : chat.speakers[i]!,
      ...(p.dateField ? { date: dateWords(chat.dates[i]!) } : {}),
    }, undefined);
  });
  return index;
}

const MONTHS = "January February March April May June July August September October November December".split(
  " ",
);
const DAYS = "Sunday Monday Tuesday Wednesday Thursday Friday Saturday".split(" ");
/** "2023-12-29" → "December Dec 29 2023 Friday". */
export function dateWords(iso: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(iso);
  if (!m) return "";
  const month = MONTHS[Number(m[2]) - 1]!;
  const day = DAYS[new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))).getUTCDay()]!;
  return `${month} ${month.slice(0, 3)} ${Number(m[3])} ${m[1]} ${day}`;
}

const SPEAKER_MARK = "zzspk";
/** A speaker's name as terms of their own ("zzspkkate"): matched only by a query naming them. */
function speakerTerms(name: string): string {
  return analyze(name).map((t) => SPEAKER_MARK + t).join(" ");
}

export interface Figures {
  r5: number;
  r10: number;
  /**
   * Share of questions with an evidence turn anywhere among the candidates hybrid fuses (each tier's
   * best 30, after lending): what any re-ranking of them could reach at most.
   */
  pool: number;
  byKind: Record<string, [number, number, number]>;
}

/** A question hybrid search missed in its top 5, with what it ranked instead (`--misses`). */
export interface Miss {
  kind: string;
  question: string;
  answers: string[];
  top: string[];
}

/** Adds `id` to the candidates at score `lent`, or raises its score to `lent` (expansions that lend). */
function lend(
  fused: { id: string; fused: number }[],
  byId: Map<string, { fused: number }>,
  id: string,
  lent: number,
) {
  const had = byId.get(id);
  if (!had) {
    const added = { id, fused: lent };
    fused.push(added);
    byId.set(id, added);
  } else if (had.fused < lent) had.fused = lent;
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
  let r5 = 0, r10 = 0, pool = 0;
  const now = new Date();
  for (const q of set.questions) {
    const chat = prepared.get(q.chat)!;
    const index = indexes.get(q.chat)!;
    const dated = parseDateWords(q.question, now);
    const text = /\w/.test(dated.rest) ? dated.rest : q.question;
    const at = new Map(chat.keys.map((k, i) => [k, i]));
    // Keyword tier (KeywordIndex.search).
    let parsed = parseQuery(text);
    // Speaker routing (Params.speakerRoute): the query's stems that name a speaker of the chat.
    // The query's stems that name a speaker of the chat (KeywordIndex.namedSpeakers).
    const speakers = chat.speakerStems ??= new Set(chat.speakers.flatMap((n) => analyze(n)));
    const named = new Set([...parsed.terms.keys()].filter((t) => speakers.has(t)));
    if (p.speakerRoute) {
      const terms = new Map(parsed.terms);
      for (const [t, c] of parsed.terms) {
        if (!speakers.has(t)) continue;
        if (p.speakerRoute.content > 0) terms.set(t, c * p.speakerRoute.content);
        else terms.delete(t);
        if (!p.speakerRoute.plain) {
          for (const s of analyze(SPEAKER_MARK + t)) terms.set(s, c * p.speakerRoute.speaker);
        }
      }
      parsed = { ...parsed, terms };
    }
    let query = p.expand ? p.expand(parsed, p.fusion.expansion) : parsed;
    let hits = index.search(query, FETCH * 2);
    if (p.prf) query = feedback(query, hits.slice(0, p.prf.docs).map((h) => at.get(h.id)!), chat, p.prf);
    if (p.prf) hits = index.search(query, FETCH * 2);
    const scores = new Map(hits.map((h) => [h.id, h.score]));
    const lent = new Map<string, number>();
    for (const h of hits) {
      for (const n of neighbours(chat, at.get(h.id)!, 1)) {
        const k = chat.keys[n]!;
        lent.set(k, Math.max(lent.get(k) ?? 0, p.lend * h.score));
      }
    }
    for (const [id, bonus] of lent) scores.set(id, (scores.get(id) ?? 0) + bonus);
    const kFetch = p.keywordFetch ?? FETCH;
    let keyword = [...scores].map(([id, score]) => ({ id, score }))
      .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
    if (p.sessionCap) {
      const per = new Map<number, number>();
      keyword = keyword.filter((r) => {
        const s = chat.session[at.get(r.id)!]!;
        per.set(s, (per.get(s) ?? 0) + 1);
        return per.get(s)! <= p.sessionCap!;
      });
    }
    keyword = keyword.slice(0, kFetch);
    // Vector tier: exact cosine.
    const qv = (p.embed ?? embedText)(
      p.speakerRoute?.strip && named.size
        ? text.replace(/[\p{L}\p{N}]+(?:['’]s)?/gu, (w) => named.has(analyze(w)[0] ?? "") ? "" : w)
        : text,
    );
    let vector = chat.vectors.map((v, i) => ({ id: chat.keys[i]!, score: cosine(qv, v) }))
      .sort((a, b) => b.score - a.score).slice(0, p.vectorFetch ?? FETCH);
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
    if (p.fillCosine && mode === "hybrid") {
      const have = new Set(vector.map((r) => r.id));
      vector = [
        ...vector,
        ...keyword.filter((r) => !have.has(r.id)).map((r) => ({
          id: r.id,
          score: cosine(qv, chat.vectors[at.get(r.id)!]!),
        })),
      ];
    }
    const inPool = (ids: Iterable<string>) => [...ids].some((id) => q.answers.includes(id));
    let pooled = inPool([...keyword, ...vector].map((r) => r.id));
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
    });
    if (p.neighbourExpand) {
      const { top, weight, radius } = p.neighbourExpand;
      const byId = new Map(fused.map((c) => [c.id, c]));
      const best = [...fused].sort((a, b) => b.fused - a.fused).slice(0, top);
      for (const c of best) {
        for (const n of neighbours(chat, at.get(c.id)!, radius)) {
          lend(fused, byId, chat.keys[n]!, weight * c.fused);
        }
      }
      pooled ||= inPool(byId.keys());
    }
    if (p.dateWindow && dated.window) {
      const { from, to } = dated.window;
      for (const c of fused) {
        const d = chat.dates[at.get(c.id)!];
        const t = d ? new Date(`${d}T12:00:00Z`) : undefined;
        if (!t || !(t >= from && t < to)) c.fused /= DATE_BOOST;
      }
    }
    if (p.speakerFactor !== undefined && p.speakerFactor !== 1 && named.size && mode !== "vector") {
      for (const c of fused) {
        const by = analyze(chat.speakers[at.get(c.id)!]!);
        if (!by.some((t) => named.has(t))) c.fused *= p.speakerFactor;
      }
    }
    if (p.speakerRoute?.prior && named.size) {
      for (const c of fused) {
        const by = analyze(chat.speakers[at.get(c.id)!]!);
        if (by.some((t) => named.has(t))) c.fused *= 1 + p.speakerRoute.prior;
      }
    }
    if (p.answerLend) {
      const byId = new Map(fused.map((c) => [c.id, c]));
      for (const c of [...fused]) {
        const i = at.get(c.id)!;
        if (
          !isQuestionTurn(chat.texts[i]!) || i + 1 >= chat.keys.length ||
          chat.session[i + 1] !== chat.session[i]
        ) {
          continue;
        }
        lend(fused, byId, chat.keys[i + 1]!, p.answerLend * c.fused);
      }
      pooled ||= inPool(byId.keys());
    }
    if (pooled) pool++;
    if (p.askPenalty) {
      for (const c of fused) if (isQuestionTurn(chat.texts[at.get(c.id)!]!)) c.fused *= 1 - p.askPenalty;
    }
    if (p.session) {
      const bySession = new Map<number, number[]>();
      for (const c of fused) {
        const s = chat.session[at.get(c.id)!]!;
        bySession.set(s, [...(bySession.get(s) ?? []), c.fused]);
      }
      const score = new Map([...bySession].map(([s, xs]) => {
        const top = xs.sort((a, b) => b - a).slice(0, p.session!.top);
        return [s, top.reduce((a, b) => a + b, 0) / p.session!.top];
      }));
      const best = Math.max(...score.values());
      for (const c of fused) {
        c.fused += p.session.weight * score.get(chat.session[at.get(c.id)!]!)! / (best || 1);
      }
    }
    fused.sort((a, b) => b.fused - a.fused || (a.id < b.id ? -1 : 1));
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
  return { r5: r5 / n, r10: r10 / n, pool: pool / n, byKind };
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

/** Figures of one variant on several sets (each set prepared once). */
export function evaluateSets(
  sets: readonly { name: string; set: ConversationSet; prepared: Map<string, Chat> }[],
  p: Params,
): Map<string, Figures> {
  return new Map(sets.map((s) => [s.name, evaluate(s.set, p, s.prepared)]));
}

/** Per set R@5 / R@10 and the macro-averages (all sets, public sets), one row per variant. */
export function setsRows(name: string, figures: Map<string, Figures>): string[] {
  const all = [...figures.values()];
  const publics = [...figures].filter(([n]) => n !== "generated").map(([, f]) => f);
  const mean = (fs: Figures[], k: "r5" | "r10") => fs.reduce((s, f) => s + f[k], 0) / (fs.length || 1);
  return [
    name,
    ...all.map((f) => `${r3(f.r5)}/${r3(f.r10)}`),
    `${r3(mean(publics, "r5"))}/${r3(mean(publics, "r10"))}`,
    `${r3(mean(all, "r5"))}/${r3(mean(all, "r10"))}`,
  ];
}

if (import.meta.main) {
  const arg = (name: string) => {
    const at = process.argv.indexOf(`--${name}`);
    return at > 0 ? process.argv[at + 1] : undefined;
  };
  const { sets, missing } = recallSets({
    half: (arg("half") ?? "dev") as Half,
    sets: arg("sets")?.split(","),
    chats: arg("chats") ? Number(arg("chats")) : undefined,
    seed: arg("seed") ? Number(arg("seed")) : undefined,
  });
  for (const m of missing) console.error(`skipped: ${m}`);
  const t = performance.now();
  const neighbours = await loadNeighbours();
  let params: Params = {
    ...CURRENT,
    expand: process.argv.includes("--no-expansion") ? undefined : (q, w) => expandQuery(q, neighbours, w),
  };
  let passageEmbed: ((text: string) => Float32Array) | undefined;
  // The server's default embedder, builtin-static, unless told otherwise.
  if ((arg("embedder") ?? "builtin-static") === "builtin-static") {
    const model = await loadStaticModel();
    // Another token table (e.g. derived from another model: scripts/bench/static_from.ts).
    if (arg("static-table")) model.table = readStaticTable(readFileSync(arg("static-table")!));
    params = {
      ...params,
      embed: (text) => embedStatic(model.table, model.tokenizer, text),
      fusion: STATIC_FUSION,
    };
  } else if (arg("embedder") === "builtin-minilm") {
    // The neural model embeds tens of texts a second: every text once, up front, then looked up.
    const model = new MiniLMEmbedder();
    const texts = [
      ...new Set(sets.flatMap((s) => [
        ...s.set.chats.flatMap((c) => c.sessions.flatMap((x) => x.turns.map((t) => t.text))),
        ...s.set.questions.map((q) => {
          const dated = parseDateWords(q.question, new Date());
          return /\w/.test(dated.rest) ? dated.rest : q.question;
        }),
      ])),
    ];
    const vectors = new Map<string, Float32Array>();
    for (let i = 0; i < texts.length; i += 64) {
      const batch = texts.slice(i, i + 64);
      (await model.embed(batch)).forEach((v, j) => vectors.set(batch[j]!, v));
    }
    params = { ...params, embed: (text) => vectors.get(text)!, fusion: MINILM_FUSION };
  } else if (CANDIDATE_MODELS[arg("embedder")!]) {
    // A jar-shipped ONNX model (model_vectors.ts): its vectors from the on-disk cache, queries and
    // stored turns with their own prefixes.
    const model = CANDIDATE_MODELS[arg("embedder")!]!;
    const turns = sets.flatMap((s) =>
      s.set.chats.flatMap((c) => c.sessions.flatMap((x) => x.turns.map((t) => t.text)))
    );
    const questions = sets.flatMap((s) =>
      s.set.questions.map((q) => {
        const dated = parseDateWords(q.question, new Date());
        return /\w/.test(dated.rest) ? dated.rest : q.question;
      })
    );
    const passages = await cachedVectors(model, turns, "passage");
    const queries = await cachedVectors(model, questions, "query");
    passageEmbed = (text) => passages.get(text)!;
    // builtin-bge-small's blend; another model starts from builtin-static's (--keyword-weight to vary it).
    const fusion = model.model.id === BGE_SMALL_ID ? BGE_SMALL_FUSION : STATIC_FUSION;
    params = { ...params, embed: (text) => queries.get(text)!, fusion };
  } else if (arg("embedder") !== "builtin-hash") {
    throw new Error(
      "--embedder: builtin-static, builtin-minilm, builtin-hash or " +
        Object.keys(CANDIDATE_MODELS).join(", "),
    );
  }
  if (arg("keyword-weight")) {
    const keyword = Number(arg("keyword-weight"));
    params = { ...params, fusion: { ...params.fusion, keyword, vector: 1 - keyword } };
  }
  const prepared = sets.map((s) => ({ ...s, prepared: prepare(s.set, passageEmbed ?? params.embed) }));
  console.log(
    `half ${arg("half") ?? "dev"}: ${
      prepared.map((s) => `${s.name} ${s.set.chats.length} chats, ${s.set.questions.length} questions`).join(
        "; ",
      )
    }`,
  );
  if (process.argv.includes("--sweep")) {
    sweep(prepared, params);
    process.exit(0);
  }
  if (process.argv.includes("--pool")) {
    // First-stage variants, with the share of questions whose evidence is among the candidates.
    const only = arg("pool-only");
    const rows: string[][] = [];
    for (const [name, p] of [["current", params] as [string, Params], ...poolCandidates(params)]) {
      if (only && name !== "current" && !name.startsWith(only)) continue;
      const figures = evaluateSets(prepared, p);
      rows.push([...setsRows(name, figures), ...[...figures.values()].map((f) => r3(f.pool))]);
      console.error(rows.at(-1)!.join("  "));
    }
    console.log(
      table([
        "variant",
        ...prepared.map((s) => `${s.name} R@5/10`),
        "public",
        "all",
        ...prepared.map((s) => `${s.name} pool`),
      ], rows),
    );
    process.exit(0);
  }
  if (process.argv.includes("--candidates")) {
    const only = arg("candidates-only");
    const rows = [setsRows("current", evaluateSets(prepared, params))];
    for (const [name, p] of candidates(params)) {
      if (only && !name.startsWith(only)) continue;
      rows.push(setsRows(name, evaluateSets(prepared, p)));
      console.error(rows.at(-1)!.join("  "));
    }
    console.log(table(["variant", ...prepared.map((s) => `${s.name} R@5/10`), "public", "all"], rows));
    process.exit(0);
  }
  if (process.argv.includes("--misses")) {
    for (const s of prepared) {
      const misses: Miss[] = [];
      evaluate(s.set, params, s.prepared, "hybrid", misses);
      for (const m of misses.slice(0, Number(arg("misses-n") ?? 30))) {
        console.log(`[${s.name} ${m.kind}] ${m.question}\n  answer: ${m.answers.join(" | ")}`);
        for (const t of m.top) console.log(`    - ${t}`);
      }
      console.log(`${s.name}: ${misses.length} missed at 5 of ${s.set.questions.length}`);
    }
    process.exit(0);
  }
  const rows: string[][] = [];
  for (const s of prepared) {
    for (const mode of ["keyword", "vector", "hybrid"]) {
      const f = evaluate(s.set, params, s.prepared, mode);
      rows.push([s.name, mode, r3(f.r5), r3(f.r10), mode === "hybrid" ? r3(f.pool) : ""]);
    }
  }
  console.log(table(["set", "tier", "R@5", "R@10", "in the fused pool"], rows));
  if (process.argv.includes("--kinds")) {
    for (const s of prepared) {
      const f = evaluate(s.set, params, s.prepared);
      console.log(
        s.name,
        Object.keys(f.byKind).sort().map((k) => {
          const [a, b, n] = f.byKind[k]!;
          return `${k} ${r3(a / n)}/${r3(b / n)} (${n})`;
        }).join(", "),
      );
    }
  }
  console.log(`${((performance.now() - t) / 1000).toFixed(1)} s`);
}

/** One parameter at a time around `base` (coordinate sweep), on the sets given. */
export function sweep(sets: Parameters<typeof evaluateSets>[0], CURRENT: Params) {
  const rows: string[][] = [setsRows("current", evaluateSets(sets, CURRENT))];
  const variants = sweepVariants(CURRENT);
  for (const [name, p] of variants) rows.push(setsRows(name, evaluateSets(sets, p)));
  console.log(table(["variant", ...sets.map((s) => `${s.name} R@5/10`), "public", "all"], rows));
}
