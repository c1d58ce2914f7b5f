/**
 * Hybrid search: BM25 and vector cosine, fused.
 *
 * - Keyword tier: BM25F over the in-process index (keyword_index.ts: Snowball stems, stop and question
 *   words dropped from the query, "phrases" and -exclusions, session neighbours as context and a hit
 *   lending score to its neighbours, query stems' word neighbours at the embedder's expansion weight),
 *   top-k by MaxScore. Scores are max-normalised per query.
 * - Vector tier: raw cosine (clamped to [0, 1], not normalised) over the scope's partitions.
 * - Fusion: the embedder's blend of the two tiers (fusion.ts: a weighted sum of max-normalised BM25
 *   and cosine, or of their z-scores), times a small confidence prior. A candidate only the vector tier
 *   found is dropped below the embedder's floor.
 * - Date words ("last week", "on Tuesday", "in March": date_words.ts) leave the query and favour entries
 *   captured in the window they name: the others' scores are divided by DATE_BOOST (still ranked).
 * - Graph edges do not lend score: a top hit lending 0.1 / 0.2 / 0.3 of its score along memory_edges
 *   lowered hybrid recall@5 on the conversational set (4 chats: 0.622 to 0.613 / 0.595 / 0.577).
 * - A conversation turn that is itself a question scores QUESTION_TURN_FACTOR of what it would
 *   (answer_prior.ts): it shares a question's words but rarely answers it.
 * - A query whose word names a speaker of the conversation (metadata `speaker`) wants that speaker's
 *   turns: the others score SPEAKER_FACTOR of what they would (speaker_prior.ts). The keyword index tells
 *   which words are speakers', so a query the keyword tier did not answer (vector mode) is not judged.
 * - Near-identical results (same hash, or token Jaccard >= COLLAPSE_JACCARD) collapse to the best.
 * - Hit counts of returned entries are counted in process and written in batches a second later
 *   (hit_counts.ts), off the request path; a cold entry's hit is written at once (it may promote it).
 * - A tier that fails is logged and skipped; the answer then carries `degraded: true`.
 */
import { sql } from "kysely";
import type { Caller } from "../../../internal/auth/mod.ts";
import { tokens } from "../embeddings/mod.ts";
import { parseQuery } from "../../../internal/fulltext/mod.ts";
import { answerPrior } from "./answer_prior.ts";
import { speakerPrior } from "./speaker_prior.ts";
import { type DateWindow, parseDateWords } from "./date_words.ts";
import { type ChangeMarks, ChangeMarksWatch } from "./change_marks.ts";
import { type MemoryEntry, toEntry } from "./entry.ts";
import { EntryCopies, type EntryCopy as Row } from "./entry_copies.ts";
import { fuse, fusionFor } from "./fusion.ts";
import { bumpHits, HitCounts } from "./hit_counts.ts";
import { KeywordIndex } from "./keyword_index.ts";
import { withinReach } from "./packed_vectors.ts";
import { LIMITS } from "./limits.ts";
import type { MemoryDeps } from "./memory_service.ts";
import type { SearchBody } from "./schemas.ts";
import { partitionsOf, type ReadScope, readScope } from "./scope.ts";
import { VectorCopies } from "./vector_copies.ts";

export const COLLAPSE_JACCARD = 0.75;
/**
 * The token sets near-duplicates are compared by, per row object: a row answered from its copy
 * (entry_copies.ts) is the same object search after search, so its content is tokenised once
 * (about 0.1 ms of a warm 1k search's 1 ms otherwise).
 */
const wordsOf = new WeakMap<Row, Set<string>>();
/** Candidates fetched per tier, as a multiple of the requested limit. */
const OVERFETCH = 3;
/**
 * How much an entry captured in a query's date window outranks one outside it. Not measured on the
 * conversational set (its turns all carry their load time): 2 because a turn naming the topic once
 * scores about half the best max-normalised BM25 of a short text naming it twice, and a query that
 * names a time wants the turn from then; a far better match outside the window still ranks.
 */
export const DATE_BOOST = 2;

export interface ContextTurn {
  id: string;
  content: string;
  /** Position relative to the result in its session: -1 just before, 1 just after. */
  offset: number;
}

export interface SearchResult extends MemoryEntry {
  score: number;
  context?: ContextTurn[];
}

export interface SearchResponse {
  results: SearchResult[];
  degraded?: true;
}

/** The memory service's dependencies, plus what only search needs. */
export interface SearchDeps extends MemoryDeps {
  /** MEMSVC_DECAY_DAYS: the lifespan unit of decay, used to promote cold entries back on a hit. */
  decayDays: number;
  /** For tests: make a tier fail on purpose. */
  failTier?: "keyword" | "vector";
  /** The keyword index, when its owner persists it (server.ts); else one of its own. */
  keywordIndex?: KeywordIndex;
}

export class SearchService {
  readonly keywordIndex: KeywordIndex;
  /** Hit counts of results, written in batches (hit_counts.ts). */
  readonly hits: HitCounts;
  /** Stored vectors of recent candidates (embedded database only: vector_copies.ts). */
  readonly vectorCopies: VectorCopies;
  /** Entry rows of recent candidates (embedded database only: entry_copies.ts). */
  readonly entryCopies: EntryCopies;
  readonly #marks: ChangeMarksWatch;

  constructor(private readonly deps: SearchDeps) {
    this.keywordIndex = deps.keywordIndex ?? new KeywordIndex(deps.db);
    this.hits = deps.hits ?? new HitCounts(deps);
    // Shared with the write path when given (server.ts): remembers and the backlog fill them.
    this.vectorCopies = deps.vectorCopies ?? new VectorCopies(deps.db, deps.embedder.id);
    this.entryCopies = deps.entryCopies ?? new EntryCopies(deps.db);
    this.hits.copies ??= this.entryCopies;
    this.#marks = new ChangeMarksWatch(deps.db);
  }

  async search(caller: Caller, body: SearchBody): Promise<SearchResponse> {
    try {
      return await this.#search(caller, body);
    } catch (err) {
      this.deps.metrics.recordFailure("search", err);
      throw err;
    }
  }

  async #search(caller: Caller, body: SearchBody): Promise<SearchResponse> {
    const scope = await readScope(this.deps.projects, caller, body);
    const limit = body.limit ?? LIMITS.defaultSearchLimit;
    const mode = body.mode ?? "hybrid";
    const fetch = limit * OVERFETCH;
    // The server's clock, UTC. A query of date words alone keeps them as its text.
    const dated = parseDateWords(body.query, new Date());
    const query = /\w/.test(dated.rest) ? dated.rest : body.query;
    const window = dated.window;
    let degraded = false;
    const tier = async <T>(name: "keyword" | "vector", run: () => Promise<T>): Promise<T | undefined> => {
      try {
        if (this.deps.failTier === name) throw new Error(`${name} tier disabled for testing`);
        return await run();
      } catch (err) {
        degraded = true;
        this.deps.log.warn("search tier failed; answering from the others", { tier: name, err });
        return undefined;
      }
    };
    // One small query tells whether either index has anything to catch up on (none on the embedded
    // database when nothing was written since the last). Vectors of earlier remembers still queued
    // are stored after it: then the vector index reads regardless.
    const queued = this.deps.vectors.pending > 0;
    const marks = await this.#marks.read();
    const [keyword, vector] = await Promise.all([
      mode === "vector" ? undefined : tier("keyword", () => this.#keyword(scope, query, fetch, marks)),
      mode === "keyword"
        ? undefined
        : tier("vector", () => this.#vector(scope, query, fetch, queued ? undefined : marks)),
    ]);

    const scores = new Map<string, { k?: number; v?: number }>();
    const maxRank = Math.max(0, ...(keyword?.hits ?? []).map((r) => r.rank));
    for (const r of keyword?.hits ?? []) scores.set(r.id, { k: maxRank > 0 ? r.rank / maxRank : 0 });
    for (const r of vector ?? []) {
      const s = scores.get(r.id) ?? {};
      s.v = Math.max(0, Math.min(1, r.score));
      scores.set(r.id, s);
    }
    const fusion = fusionFor(this.deps.embedder.id);
    const candidates = fuse(scores, fusion, { keyword: !!keyword?.hits.length, vector: !!vector?.length });

    const kept = await this.#top(candidates, limit, window, keyword?.named ?? new Set());
    // Hits of cold entries are written now (one may be promoted back); the others are batched.
    const cold = kept.filter((k) => k.row.cold);
    if (cold.length) {
      const promoted = await bumpHits(
        this.deps.db,
        this.deps.decayDays,
        new Map(cold.map((k) => [k.row.id, 1])),
        this.entryCopies,
      );
      if (promoted) this.deps.metrics.count("promotions", promoted);
    }
    this.hits.add(kept.filter((k) => !k.row.cold).map((k) => k.row.id));
    this.deps.activity.record(caller.userId, caller.tokenHash, "search");
    this.deps.metrics.recordSearch({
      results: kept.length,
      degraded,
      keywordHits: kept.filter((k) => scores.get(k.row.id)!.k !== undefined).length,
      vectorHits: kept.filter((k) => (scores.get(k.row.id)!.v ?? 0) >= fusion.floor).length,
    });
    const results: SearchResult[] = kept.map((k) => ({
      ...toEntry(k.row),
      hit_count: k.row.hit_count + (k.row.cold ? 1 : this.hits.pending(k.row.id)),
      score: round(k.score),
    }));
    if (body.context) await this.#addContext(results, body.context);
    return degraded ? { results, degraded: true } : { results };
  }

  /**
   * The `limit` best candidates after the confidence prior, the question-turn and speaker priors, the date
   * window and collapsing near duplicates, reading entry rows only as far down the fused order as can still matter:
   * the priors scale a fused score by at most 1 and the window divides it by at most DATE_BOOST, so once the
   * lowest kept score beats the best fused score not yet read, no candidate below can enter. Usually
   * one read of about `limit` rows, where reading every candidate took three times as many.
   */
  async #top(
    candidates: { id: string; fused: number }[],
    limit: number,
    window: DateWindow | undefined,
    named: ReadonlySet<string>,
  ) {
    const order = [...candidates].sort((a, b) => b.fused - a.fused || (a.id < b.id ? -1 : 1));
    const ranked: { row: Row; score: number }[] = [];
    let kept: { row: Row; score: number; words: Set<string> }[] = [];
    let read = 0;
    while (read < order.length) {
      const batch = order.slice(read, read += Math.max(limit + (limit >> 1), 1));
      const rows = await this.entryCopies.read(batch.map((c) => c.id));
      const byId = new Map(rows.map((r) => [r.id, r]));
      // Candidates whose entry is gone (deleted by another process) leave the in-process indexes too.
      const gone = batch.filter((c) => !byId.has(c.id)).map((c) => c.id);
      this.deps.index.evict(gone);
      this.keywordIndex.evict(gone);
      for (const c of batch) {
        const row = byId.get(c.id);
        if (!row) continue;
        const outside = window && !(row.created_at >= window.from && row.created_at < window.to);
        ranked.push({
          row,
          score: c.fused * (0.9 + 0.1 * row.confidence) * answerPrior(row) * speakerPrior(row, named) /
            (outside ? DATE_BOOST : 1),
        });
      }
      ranked.sort((a, b) => b.score - a.score || a.row.id.localeCompare(b.row.id));
      kept = [];
      for (const r of ranked) {
        if (kept.length >= limit) break;
        let w = wordsOf.get(r.row);
        if (!w) wordsOf.set(r.row, w = new Set(tokens(r.row.content)));
        const same = (k: (typeof kept)[number]) =>
          k.row.content_hash === r.row.content_hash || jaccard(k.words, w) >= COLLAPSE_JACCARD;
        if (!kept.some(same)) kept.push({ ...r, words: w });
      }
      // The best score a candidate not yet read can reach is its fused score.
      const next = order[read];
      if (kept.length >= limit && (!next || kept.at(-1)!.score > next.fused)) break;
    }
    return kept;
  }

  /**
   * BM25 over the in-process index; cold (decayed) entries are out (the vector tier still sees them).
   * With the hits, the query's stems that name a speaker in scope (speaker_prior.ts).
   */
  async #keyword(scope: ReadScope, query: string, n: number, marks: ChangeMarks) {
    await this.keywordIndex.sync(marks.entries);
    const expansion = fusionFor(this.deps.embedder.id).expansion;
    const parsed = parseQuery(query);
    const partitions = new Set(partitionsOf(scope));
    const hits = this.keywordIndex.search(parsed, partitions, n, expansion).map((h) => ({
      id: h.id,
      rank: h.score,
    }));
    return { hits, named: this.keywordIndex.namedSpeakers(parsed, partitions) };
  }

  /**
   * The turns around each result in its conversation: same user, scope and session, capture order,
   * up to `n` on each side.
   */
  async #addContext(results: SearchResult[], n: number) {
    for (const r of results) r.context = [];
    const hits = results.filter((r) => r.session_id !== null).map((r) => r.id);
    if (hits.length === 0) return;
    const side = (before: boolean) =>
      sql`(select e.id, e.content, e.capture_seq from memory_entries e
            where e.user_id = h.user_id and e.session_id = h.session_id and e.namespace = h.namespace
              and e.project_id is not distinct from h.project_id
              and e.capture_seq ${before ? sql`<` : sql`>`} h.capture_seq
            order by e.capture_seq ${before ? sql`desc` : sql`asc`} limit ${n})`;
    const { rows } = await sql<{ hit: string; id: string; content: string; seq: string; at: string }>`
      select h.id as hit, c.id, c.content, c.capture_seq as seq, h.capture_seq as at
        from memory_entries h
        cross join lateral (${side(true)} union all ${side(false)}) c
       where h.id in (${sql.join(hits)})`.execute(this.deps.db);
    const byHit = new Map<string, { id: string; content: string; seq: bigint; at: bigint }[]>();
    for (const r of rows) {
      const list = byHit.get(r.hit) ?? [];
      list.push({ id: r.id, content: r.content, seq: BigInt(r.seq), at: BigInt(r.at) });
      byHit.set(r.hit, list);
    }
    for (const result of results) {
      const list = byHit.get(result.id);
      if (!list) continue;
      list.sort((a, b) => (a.seq < b.seq ? -1 : 1));
      const at = list.findIndex((t) => t.seq > t.at);
      const split = at < 0 ? list.length : at;
      result.context = list.map((t, i) => ({
        id: t.id,
        content: t.content,
        offset: i < split ? i - split : i - split + 1,
      }));
    }
  }

  async #vector(scope: ReadScope, query: string, n: number, marks: ChangeMarks | undefined) {
    // Earlier remembers' vectors are stored after their commit: a search sees every acknowledged write.
    await this.deps.vectors.settled();
    const embedder = this.deps.embedder;
    const [vector] = await Promise.all([
      embedder.embedQuery ? embedder.embedQuery(query) : embedder.embed([query]).then((v) => v[0]!),
      this.deps.index.sync(marks?.vectors),
    ]);
    // The index's int8 cosines pick the candidates (with room for quantisation error at the edge);
    // the exact cosines of those few, from their stored vectors, rank them.
    // Only those that can still be among the exact top n are read back (withinReach), and only
    // those not copied in process (vector_copies.ts).
    const approximate = this.deps.index.nearest(vector!, partitionsOf(scope), n * 2);
    return (await this.vectorCopies.rescore(vector!, withinReach(approximate, n))).slice(0, n);
  }
}

function jaccard(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 && b.size === 0) return 1;
  let shared = 0;
  for (const w of a) if (b.has(w)) shared++;
  return shared / (a.size + b.size - shared);
}

function round(x: number): number {
  return Math.round(x * 10_000) / 10_000;
}
