/**
 * The API key budget shared by the replicas on one PostgreSQL server. Every request is checked against
 * this process's buckets in memory (O(1), no query); the buckets are kept current with the others'
 * spending through the key's row (`api_keys.bucket_tokens` at `bucket_at`, refilled at the same rate):
 * - every `settleMs` each process adds what its keys spent since the last settlement to their rows in
 *   one statement and takes back what is left, a debt included when the replicas together overspent;
 * - a key this process has not settled for `2 × settleMs` (new here, or busy on another replica) is
 *   read from its row before its next request is checked.
 * So a key gets its rate and burst across all replicas, give or take what they let through before the
 * balances meet: up to two settlement periods, as each process settles on its own timer. On the
 * embedded database there is one process and the buckets stay in memory.
 *
 * @example
 * const shared = new SharedKeyBuckets({ db, log, ratePerSecond: 10, burst: 300, settleMs: 1_000 });
 * shared.start();
 * app.use(keyBudget({ buckets: shared, ratePerMinute: 600, burst: 300 }));
 */
import { type Kysely, sql } from "kysely";
import { TokenBuckets, type Verdict } from "../../../internal/http/mod.ts";
import type { Logger } from "../../../internal/log/mod.ts";
import type { VaultDatabase } from "../store/db.ts";

export interface SharedKeyBucketsOptions {
  db: Kysely<VaultDatabase>;
  log: Logger;
  ratePerSecond: number;
  burst: number;
  settleMs: number;
}

export class SharedKeyBuckets {
  readonly #local: TokenBuckets;
  /** Tokens spent here per key since the last settlement. */
  #spent = new Map<string, number>();
  /** When each key was last brought up to date with its row (epoch ms). */
  readonly #synced = new Map<string, number>();
  readonly #loading = new Map<string, Promise<void>>();
  #timer: ReturnType<typeof setInterval> | undefined;
  #settling: Promise<void> | undefined;

  constructor(private readonly o: SharedKeyBucketsOptions) {
    this.#local = new TokenBuckets({ ratePerSecond: o.ratePerSecond, burst: o.burst });
  }

  start(): void {
    this.#timer = setInterval(() => void this.settle(), this.o.settleMs);
    (this.#timer as { unref?: () => void }).unref?.();
  }

  /** Stops settling, after a last settlement of what was spent. */
  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.settle();
  }

  async take(key: string, cost = 1): Promise<Verdict> {
    if (Date.now() - (this.#synced.get(key) ?? 0) > 2 * this.o.settleMs) await this.#load(key);
    const verdict = this.#local.take(key, cost);
    if (verdict.allowed) this.#spent.set(key, (this.#spent.get(key) ?? 0) + Math.min(cost, this.o.burst));
    return verdict;
  }

  /** Adds this process's spending to the keys' rows and takes their balance back (one statement). */
  settle(): Promise<void> {
    this.#settling ??= this.#settle().finally(() => (this.#settling = undefined));
    return this.#settling;
  }

  async #settle(): Promise<void> {
    const spent = this.#spent;
    if (spent.size === 0) return;
    this.#spent = new Map();
    const { ratePerSecond: rate, burst } = this.o;
    const keys = [...spent.keys()];
    try {
      const rows = await sql<{ key_hash: string; tokens: number }>`
        update api_keys as k set
          bucket_tokens = least(${burst}::float8, coalesce(k.bucket_tokens, ${burst}::float8)
            + ${rate}::float8 * extract(epoch from now() - coalesce(k.bucket_at, now()))) - t.spent,
          bucket_at = now()
        from unnest(${keys}::text[], ${keys.map((k) => spent.get(k)!)}::float8[]) as t(key_hash, spent)
        where k.key_hash = t.key_hash
        returning k.key_hash, k.bucket_tokens as tokens`.execute(this.o.db);
      for (const row of rows.rows) this.#adopt(row.key_hash, Number(row.tokens));
    } catch (err) {
      // Counted again at the next settlement; meanwhile each process goes by its own buckets.
      for (const [k, n] of spent) this.#spent.set(k, (this.#spent.get(k) ?? 0) + n);
      this.o.log.warn("API key budgets not settled with the other replicas", { err });
    }
    const now = Date.now();
    for (const [k, at] of this.#synced) if (now - at > 2 * this.o.settleMs) this.#synced.delete(k);
  }

  /** Reads a key's row before its request is checked; concurrent requests share one read. */
  #load(key: string): Promise<void> {
    let loading = this.#loading.get(key);
    if (!loading) {
      loading = (async () => {
        try {
          const row = await this.o.db.selectFrom("api_keys")
            .select([
              "bucket_tokens",
              sql<number>`extract(epoch from now() - bucket_at)`.as("age"),
            ])
            .where("key_hash", "=", key).executeTakeFirst();
          const { ratePerSecond: rate, burst } = this.o;
          const tokens = row?.bucket_tokens == null
            ? burst
            : Math.min(burst, Number(row.bucket_tokens) + rate * Math.max(0, Number(row.age)));
          this.#adopt(key, tokens);
        } catch (err) {
          // Go by this process's bucket; read again in a while, not on every request.
          this.#synced.set(key, Date.now());
          this.o.log.warn("API key budget not read", { err });
        }
      })().finally(() => this.#loading.delete(key));
      this.#loading.set(key, loading);
    }
    return loading;
  }

  /** Sets the local bucket to the shared balance, less what was spent here since it was read. */
  #adopt(key: string, tokens: number): void {
    this.#local.bucket(key).tokens = tokens - (this.#spent.get(key) ?? 0);
    this.#synced.set(key, Date.now());
  }
}
