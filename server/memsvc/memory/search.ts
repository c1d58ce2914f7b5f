/**
 * Hybrid search: PostgreSQL full-text rank and vector cosine, fused.
 *
 * - Keyword tier: ts_rank_cd over websearch_to_tsquery (quoted phrases, -exclusions, `or`), strict
 *   AND first; when AND finds nothing the words are retried joined by OR, because agents often pass
 *   a whole sentence as the query. Ranks are max-normalised per query.
 * - Vector tier: raw cosine (clamped to [0, 1], not normalised) over the scope's partitions.
 * - Fusion: KEYWORD_WEIGHT and VECTOR_WEIGHT, renormalised over the tiers that answered, times a
 *   small confidence prior. A candidate only the vector tier found is dropped below VECTOR_FLOOR.
 * - Near-identical results (same hash, or token Jaccard >= COLLAPSE_JACCARD) collapse to the best.
 * - Hit counts of returned entries are bumped in one statement, rows locked in id order so
 *   concurrent searches cannot deadlock.
 * - A tier that fails is logged and skipped; the answer then carries `degraded: true`.
 */
import { sql } from "kysely";
import type { Caller } from "../../../internal/auth/mod.ts";
import { tokens } from "../embeddings/mod.ts";
import { lifespanDays } from "../maintenance/decay.ts";
import { ENTRY_COLUMNS, type MemoryEntry, toEntry } from "./entry.ts";
import { LIMITS } from "./limits.ts";
import type { MemoryDeps } from "./memory_service.ts";
import type { SearchBody } from "./schemas.ts";
import { inScope, partitionsOf, type ReadScope, readScope } from "./scope.ts";

export const KEYWORD_WEIGHT = 0.4;
export const VECTOR_WEIGHT = 0.6;
/** Calibrated for the built-in hashing embedder: unrelated sentences score below it. */
export const VECTOR_FLOOR = 0.2;
export const COLLAPSE_JACCARD = 0.75;
/** Candidates fetched per tier, as a multiple of the requested limit. */
const OVERFETCH = 3;

export interface SearchResult extends MemoryEntry {
  score: number;
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
}

export class SearchService {
  constructor(private readonly deps: SearchDeps) {}

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
    const [keyword, vector] = await Promise.all([
      mode === "vector" ? undefined : tier("keyword", () => this.#keyword(scope, body.query, fetch)),
      mode === "keyword" ? undefined : tier("vector", () => this.#vector(scope, body.query, fetch)),
    ]);

    const scores = new Map<string, { k?: number; v?: number }>();
    const maxRank = Math.max(0, ...(keyword ?? []).map((r) => r.rank));
    for (const r of keyword ?? []) scores.set(r.id, { k: maxRank > 0 ? r.rank / maxRank : 0 });
    for (const r of vector ?? []) {
      const s = scores.get(r.id) ?? {};
      s.v = Math.max(0, Math.min(1, r.score));
      scores.set(r.id, s);
    }
    const kw = keyword?.length ? KEYWORD_WEIGHT : 0;
    const vw = vector?.length ? VECTOR_WEIGHT : 0;
    const candidates = [...scores.entries()]
      .filter(([, s]) => s.k !== undefined || (s.v ?? 0) >= VECTOR_FLOOR)
      .map(([id, s]) => ({ id, fused: (kw * (s.k ?? 0) + vw * (s.v ?? 0)) / (kw + vw || 1) }));

    const rows = candidates.length
      ? await this.deps.db.selectFrom("memory_entries").select(ENTRY_COLUMNS)
        .where("id", "in", candidates.map((c) => c.id)).execute()
      : [];
    const byId = new Map(rows.map((r) => [r.id, r]));
    // Candidates whose entry is gone (deleted by another process) leave the vector cache too.
    this.deps.index.evict(candidates.filter((c) => !byId.has(c.id)).map((c) => c.id));

    const ranked = candidates.flatMap((c) => {
      const row = byId.get(c.id);
      return row ? [{ row, score: c.fused * (0.9 + 0.1 * row.confidence) }] : [];
    }).sort((a, b) => b.score - a.score || a.row.id.localeCompare(b.row.id));

    const kept: { row: (typeof ranked)[number]["row"]; score: number; words: Set<string> }[] = [];
    for (const r of ranked) {
      if (kept.length >= limit) break;
      const words = new Set(tokens(r.row.content));
      if (
        kept.some((k) =>
          k.row.content_hash === r.row.content_hash || jaccard(k.words, words) >= COLLAPSE_JACCARD
        )
      ) {
        continue;
      }
      kept.push({ ...r, words });
    }
    await this.#bumpHits(kept.map((k) => k.row.id));
    this.deps.activity.record(caller.userId, caller.tokenHash, "search");
    this.deps.metrics.recordSearch({
      results: kept.length,
      degraded,
      keywordHits: kept.filter((k) => scores.get(k.row.id)!.k !== undefined).length,
      vectorHits: kept.filter((k) => (scores.get(k.row.id)!.v ?? 0) >= VECTOR_FLOOR).length,
    });
    const results = kept.map((k) => ({
      ...toEntry(k.row),
      hit_count: k.row.hit_count + 1,
      score: round(k.score),
    }));
    return degraded ? { results, degraded: true } : { results };
  }

  async #keyword(scope: ReadScope, query: string, n: number) {
    const run = (tsquery: string) =>
      this.deps.db.selectFrom("memory_entries")
        .select([
          "memory_entries.id",
          sql<number>`ts_rank_cd(tsv, websearch_to_tsquery('english', ${tsquery}))`.as("rank"),
        ])
        .where(inScope(scope))
        // Cold (decayed) entries are out of the keyword tier; the vector tier can still find them.
        .where("cold", "=", false)
        .where(sql<boolean>`tsv @@ websearch_to_tsquery('english', ${tsquery})`)
        .orderBy("rank", "desc")
        .limit(n)
        .execute();
    const strict = await run(query);
    if (strict.length > 0) return strict;
    const words = query.match(/[\p{L}\p{N}]+/gu) ?? [];
    return words.length > 1 ? await run(words.join(" or ")) : strict;
  }

  async #vector(scope: ReadScope, query: string, n: number) {
    // Earlier remembers' vectors are stored after their commit: a search sees every acknowledged write.
    await this.deps.vectors.settled();
    const [[vector]] = await Promise.all([this.deps.embedder.embed([query]), this.deps.index.sync()]);
    // The index's int8 cosines pick the candidates (with room for quantisation error at the edge);
    // the exact cosines of those few, from their stored vectors, rank them.
    const approximate = this.deps.index.nearest(vector!, partitionsOf(scope), n * 2);
    return (await this.deps.index.rescore(vector!, approximate)).slice(0, n);
  }

  /**
   * One statement; rows locked in id order first, so two searches bumping the same rows cannot
   * deadlock. A cold entry is promoted back when its lifespan with this hit exceeds its idle time
   * (the rule of maintenance/decay.ts, evaluated on the values before this hit).
   */
  async #bumpHits(ids: string[]) {
    if (ids.length === 0) return;
    const sorted = [...ids].sort();
    const promote = sql<boolean>`cold and ${
      lifespanDays(this.deps.decayDays, sql`hit_count + 1`)
    } * interval '1 day' > now() - coalesce(last_accessed_at, updated_at)`;
    // The subquery locks the rows in id order and evaluates promotion on their values before
    // this hit; RETURNING tells which rows were promoted.
    const { rows } = await sql<{ promoted: boolean }>`
      update memory_entries m
         set hit_count = m.hit_count + 1,
             last_accessed_at = now(),
             cold = m.cold and not x.promoted
        from (select id, ${promote} as promoted from memory_entries
               where id in (${sql.join(sorted)}) order by id for update) x
       where m.id = x.id
      returning x.promoted`.execute(this.deps.db);
    const promoted = rows.filter((r) => r.promoted).length;
    if (promoted) this.deps.metrics.count("promotions", promoted);
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
