/**
 * Per-user, per-token activity in one-minute buckets: what GET /v1/me/metrics/history shows and
 * the admin metrics build on. Counts accumulate in memory and are flushed every minute as one row
 * per (minute, user, token); rows from several processes add up. A failed flush keeps its samples
 * for the next one, so a database hiccup loses nothing.
 */
import { sql } from "kysely";
import type { Kysely } from "kysely";
import { keepingCopies } from "../../../internal/db/mod.ts";
import type { Logger } from "../../../internal/log/mod.ts";
import type { MemsvcDatabase } from "../store/db.ts";

export type ActivityKind = "remember" | "search" | "update" | "forget" | "recent" | "neighbors";

const MINUTE = 60_000;
/** Bound on pending (minute, user, token) buckets, so a flood of users cannot grow memory without end. */
const MAX_BUCKETS = 50_000;

interface Bucket {
  minute: number;
  userId: string;
  tokenHash: string;
  counts: Partial<Record<ActivityKind, number>>;
}

export class ActivityRecorder {
  #pending = new Map<string, Bucket>();
  #timer: ReturnType<typeof setInterval> | undefined;
  #dropped = 0;

  constructor(
    private readonly db: Kysely<MemsvcDatabase>,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  record(userId: string, tokenHash: string | undefined, kind: ActivityKind, n = 1): void {
    const minute = Math.floor(this.now() / MINUTE) * MINUTE;
    const key = `${minute}|${userId}|${tokenHash ?? ""}`;
    let bucket = this.#pending.get(key);
    if (!bucket) {
      if (this.#pending.size >= MAX_BUCKETS) {
        this.#dropped++;
        return;
      }
      this.#pending.set(key, bucket = { minute, userId, tokenHash: tokenHash ?? "", counts: {} });
    }
    bucket.counts[kind] = (bucket.counts[kind] ?? 0) + n;
  }

  /** The not-yet-flushed buckets of one user, for history reads that must include the current minute. */
  pendingFor(userId: string): { minute: number; counts: Partial<Record<ActivityKind, number>> }[] {
    return [...this.#pending.values()].filter((b) => b.userId === userId);
  }

  /** Writes every pending bucket; on failure they stay pending (merged with newer counts). */
  async flush(): Promise<void> {
    if (this.#pending.size === 0) return;
    const batch = this.#pending;
    this.#pending = new Map();
    try {
      const rows = [...batch.values()].map((b) => ({
        minute: new Date(b.minute),
        user_id: b.userId,
        token_hash: b.tokenHash,
        counts: b.counts,
      }));
      // Marked: it writes no row search keeps a copy of, so those copies stay (write_count.ts).
      await this.db.executeQuery(keepingCopies(
        this.db.insertInto("metrics_samples").values(rows)
          .onConflict((oc) =>
            oc.columns(["minute", "user_id", "token_hash"]).doUpdateSet({
              counts: sql`(select jsonb_object_agg(k, coalesce((metrics_samples.counts->>k)::bigint, 0)
              + coalesce((excluded.counts->>k)::bigint, 0))
              from jsonb_object_keys(metrics_samples.counts || excluded.counts) as k)`,
            })
          )
          .compile(),
      ));
    } catch (err) {
      for (const [key, bucket] of batch) {
        const newer = this.#pending.get(key);
        if (newer) {
          for (const [kind, n] of Object.entries(bucket.counts)) {
            newer.counts[kind as ActivityKind] = (newer.counts[kind as ActivityKind] ?? 0) + n;
          }
        } else this.#pending.set(key, bucket);
      }
      this.log.warn("activity flush failed; samples kept for the next flush", { err, buckets: batch.size });
    }
    if (this.#dropped) {
      this.log.warn("activity buckets dropped at the memory bound", { dropped: this.#dropped });
      this.#dropped = 0;
    }
  }

  start(intervalMs = MINUTE): void {
    this.#timer ??= setInterval(() => void this.flush(), intervalMs);
    (this.#timer as { unref?: () => void }).unref?.();
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.flush();
  }

  /** One-minute buckets of a user's activity over the last `hours`, oldest first, the current minute included. */
  async history(userId: string, hours: number) {
    const since = new Date(this.now() - hours * 60 * MINUTE);
    const rows = await this.db.selectFrom("metrics_samples")
      .select(["minute", "counts"])
      .where("user_id", "=", userId)
      .where("minute", ">=", since)
      .execute();
    return mergeBuckets(since, rows, this.pendingFor(userId));
  }

  /**
   * One-minute buckets summed over every user and token over the last `hours`, oldest first, the
   * current minute included. The database sums, so one row per (minute, kind) comes back however
   * many users were active.
   */
  async totals(hours: number) {
    const since = new Date(this.now() - hours * 60 * MINUTE);
    const { rows } = await sql<{ minute: Date; kind: string; n: string }>`
      select minute, k as kind, sum((counts->>k)::bigint) as n
        from metrics_samples, jsonb_object_keys(counts) as k
       where minute >= ${since}
       group by minute, k`.execute(this.db);
    const sums = rows.map((r) => ({ minute: r.minute, counts: { [r.kind]: r.n } }));
    return mergeBuckets(since, sums, this.#pending.values());
  }
}

/** Adds stored rows and pending buckets up per minute, from `since` on, oldest first. */
function mergeBuckets(
  since: Date,
  rows: Iterable<{ minute: Date; counts: unknown }>,
  pending: Iterable<{ minute: number; counts: Partial<Record<ActivityKind, number>> }>,
) {
  const byMinute = new Map<number, Record<string, number>>();
  const add = (minute: number, counts: Record<string, unknown>) => {
    const into = byMinute.get(minute) ?? {};
    for (const [k, v] of Object.entries(counts)) into[k] = (into[k] ?? 0) + Number(v);
    byMinute.set(minute, into);
  };
  for (const r of rows) add(new Date(r.minute).getTime(), r.counts as Record<string, unknown>);
  for (const b of pending) if (b.minute >= since.getTime()) add(b.minute, b.counts);
  return [...byMinute.entries()].sort(([a], [b]) => a - b)
    .map(([minute, counts]) => ({ minute: new Date(minute).toISOString(), counts }));
}
