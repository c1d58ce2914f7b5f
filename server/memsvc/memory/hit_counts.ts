/**
 * Hit counts of search results, written off the request path: a search counts its results here and
 * one UPDATE, `delayMs` later, adds every entry's count and stamps its last access, so searches do
 * not each pay a write on the database's single connection (PGlite) or a row lock (PostgreSQL).
 * Reads of an entry in this process add what is counted and not yet written (`pending`), so a
 * caller sees its hits at once; another replica sees them after the flush. A flush writes
 * `HIT_BATCH` entries per statement: on PGlite's one session a single UPDATE of every entry hit in a
 * second (hundreds at 1,000 entries, ~0.25 ms of CPU each) held up every search behind it for
 * 100 ms and more; between batches the searches waiting run.
 *
 * Given `pauses` (the embedded database), a flush due after `delayMs` waits for a pause between
 * requests (request_pauses.ts) before each batch, until `pauses.maxMs` after its first hit: at
 * 100,000 entries a batch held PGlite's session for 20–130 ms, and the searches that met the
 * batches every 5 s were the p95. Under a steady stream of searches the hits of a minute share one
 * flush (hits of the same entries coalesce), written between requests as before.
 *
 * Durability: hit counts are statistics. A flush that fails keeps its counts for the next one;
 * `stop` (at shutdown) writes what is left; a crash loses at most `delayMs` of hits (`pauses.maxMs`
 * with pauses).
 *
 * Cold entries are not deferred: search bumps those itself, because a hit can promote one back
 * (maintenance/decay.ts) and the caller's next read must show it.
 *
 * @example
 * const hits = new HitCounts({ db, decayDays: 7, log, metrics });
 * hits.add(["m_1", "m_2"]);
 * hits.pending("m_1"); // 1 until the flush lands
 * await hits.stop();
 */
import { type Kysely, sql } from "kysely";
import type { Logger } from "../../../internal/log/mod.ts";
import { lifespanDays } from "../maintenance/decay.ts";
import type { MemsvcMetrics } from "../metrics/registry.ts";
import type { MemsvcDatabase } from "../store/db.ts";
import type { EntryCopies, HitColumns } from "./entry_copies.ts";
import { PAUSE_IDLE_MS, type RequestPauses } from "./request_pauses.ts";

/** How long hits gather before one write: short enough that other replicas see them soon. */
export const HIT_FLUSH_MS = 1_000;
/**
 * On the embedded database no other replica reads them, and every flush holds its one session: hits
 * of several seconds of searches share one (the same entries come up again and again).
 */
export const HIT_FLUSH_EMBEDDED_MS = 5_000;
/** Entries per UPDATE of a flush: a few ms of PGlite's session each. */
export const HIT_BATCH = 16;
/** With pauses: the longest hits wait for a pause between requests before they are written anyway. */
export const HIT_FLUSH_MAX_MS = 60_000;

export interface HitCountsDeps {
  db: Kysely<MemsvcDatabase>;
  /** MEMSVC_DECAY_DAYS: a cold entry is promoted back when its lifespan with the hits exceeds its idle time. */
  decayDays: number;
  log: Logger;
  metrics: MemsvcMetrics;
  /** Pauses between requests a flush waits for (the embedded database), up to `maxMs` after its first hit. */
  pauses?: { pauses: RequestPauses; maxMs: number };
}

export class HitCounts {
  /** Counted and not yet written. */
  #counted = new Map<string, number>();
  /** Being written by the flush in progress (still `pending` until it commits). */
  #writing = new Map<string, number>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #flushing: Promise<void> | undefined;
  /** performance.now() of the first hit counted and not yet being written (pauses: its deadline). */
  #firstAt = 0;
  /** Aborted by `stop`: a flush waiting for a pause then writes at once. */
  readonly #stopping = new AbortController();
  /** Copies of entry rows that a flush keeps right instead of dropping (search sets it). */
  copies: EntryCopies | undefined;

  constructor(private readonly deps: HitCountsDeps, readonly delayMs = HIT_FLUSH_MS) {}

  /** Counts one hit for each id; the write follows within `delayMs`. */
  add(ids: readonly string[]) {
    if (ids.length === 0) return;
    if (this.#counted.size === 0) this.#firstAt = performance.now();
    for (const id of ids) this.#counted.set(id, (this.#counted.get(id) ?? 0) + 1);
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined;
      void this.#flushAtPauses();
    }, this.delayMs);
    // A pending flush must not keep a process alive that has nothing else to do; stop() writes it.
    (this.#timer as { unref?: () => void }).unref?.();
  }

  /** Hits of the entry counted here and not yet in its stored hit_count. */
  pending(id: string): number {
    return (this.#counted.get(id) ?? 0) + (this.#writing.get(id) ?? 0);
  }

  /** Writes what is counted now (after a flush in progress). */
  flush(): Promise<void> {
    return this.#flush(undefined);
  }

  /** The timer's flush: with pauses, each batch waits for one until the first hit's deadline. */
  #flushAtPauses(): Promise<void> {
    const pauses = this.deps.pauses;
    return this.#flush(pauses && { pauses: pauses.pauses, deadline: this.#firstAt + pauses.maxMs });
  }

  async #flush(waitFor: { pauses: RequestPauses; deadline: number } | undefined): Promise<void> {
    while (this.#flushing) await this.#flushing;
    if (this.#counted.size === 0) return;
    this.#writing = this.#counted;
    this.#counted = new Map();
    this.#flushing = this.#write(this.#writing, this.#firstAt, waitFor).finally(
      () => (this.#flushing = undefined),
    );
    await this.#flushing;
  }

  /** Cancels the timer and writes what is left. */
  async stop(): Promise<void> {
    this.#stopping.abort();
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.flush();
  }

  async #write(
    counts: Map<string, number>,
    firstAt: number,
    waitFor?: { pauses: RequestPauses; deadline: number },
  ) {
    const all = [...counts];
    let done = 0;
    try {
      for (; done < all.length; done += HIT_BATCH) {
        if (waitFor) {
          const left = waitFor.deadline - performance.now();
          if (left > 0) await waitFor.pauses.pause(PAUSE_IDLE_MS, left, this.#stopping.signal);
        }
        const batch = new Map(all.slice(done, done + HIT_BATCH));
        const promoted = await bumpHits(this.deps.db, this.deps.decayDays, batch, this.copies);
        // Written: no longer pending, or a read now would count them twice.
        for (const id of batch.keys()) counts.delete(id);
        if (promoted) this.deps.metrics.count("promotions", promoted);
      }
    } catch (err) {
      // What is not written yet is kept for the next flush, on top of what arrived meanwhile, and
      // keeps its deadline.
      this.#firstAt = this.#counted.size ? Math.min(this.#firstAt, firstAt) : firstAt;
      for (const [id, n] of all.slice(done)) this.#counted.set(id, (this.#counted.get(id) ?? 0) + n);
      this.deps.log.warn("writing hit counts failed; retrying with the next flush", {
        entries: all.length - done,
        err,
      });
      this.#timer ??= setTimeout(() => {
        this.#timer = undefined;
        void this.#flushAtPauses();
      }, this.delayMs);
    } finally {
      this.#writing = new Map();
    }
  }
}

/**
 * Adds each entry's count to its hit_count in one statement and returns how many were promoted.
 * Rows are locked in id order first, so two writers bumping the same rows cannot deadlock. A cold
 * entry is promoted back when its lifespan with these hits exceeds its idle time (the rule of
 * maintenance/decay.ts, evaluated on the values before the hits).
 */
export async function bumpHits(
  db: Kysely<MemsvcDatabase>,
  decayDays: number,
  counts: ReadonlyMap<string, number>,
  copies?: EntryCopies,
): Promise<number> {
  if (counts.size === 0) return 0;
  const write = () => bumpHitsReturning(db, decayDays, counts);
  const rows = copies ? await copies.patched(write) : await write();
  return rows.filter((r) => r.promoted).length;
}

/** bumpHits, returning each row's new hit columns (for copies of the rows: entry_copies.ts). */
async function bumpHitsReturning(
  db: Kysely<MemsvcDatabase>,
  decayDays: number,
  counts: ReadonlyMap<string, number>,
): Promise<(HitColumns & { promoted: boolean })[]> {
  const sorted = [...counts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const promote = sql<boolean>`e.cold and ${
    lifespanDays(decayDays, sql`e.hit_count + h.n`)
  } * interval '1 day' > now() - coalesce(e.last_accessed_at, e.updated_at)`;
  // The subquery locks the rows in id order and evaluates promotion on their values before these
  // hits; RETURNING tells which rows were promoted.
  const { rows } = await sql<HitColumns & { promoted: boolean }>`
    update memory_entries m
       set hit_count = m.hit_count + x.n,
           last_accessed_at = now(),
           cold = m.cold and not x.promoted
      from (select e.id, h.n, ${promote} as promoted
              from memory_entries e
              join (values ${
    sql.join(sorted.map(([id, n]) => sql`(${id}, ${n}::int)`))
  }) h(id, n) on h.id = e.id
             order by e.id for update of e) x
     where m.id = x.id
    returning m.id, m.hit_count, m.last_accessed_at, m.cold, x.promoted`.execute(db);
  return rows;
}
