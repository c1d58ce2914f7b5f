/**
 * Token buckets per key, in memory: each key holds up to `burst` tokens and gets `ratePerSecond`
 * back each second; a request spends its cost or is refused with how long until it could go. Unlike
 * a fixed window there is no edge to wait for (a window that refuses for the rest of 15 minutes, or
 * lets twice its limit through across a boundary): a client that stays under the rate is never
 * refused, and one that goes over waits only for the tokens it lacks.
 *
 * A check is O(1): one map lookup and a little arithmetic, no timers and no log of past requests.
 * Memory is bounded by `maxKeys`: past it the key used longest ago is forgotten (it starts full
 * again, which is what it would have refilled to anyway unless it was used within the last
 * `burst / ratePerSecond` seconds).
 *
 * @example
 * const buckets = new TokenBuckets({ ratePerSecond: 10, burst: 300 });
 * const verdict = buckets.take(key);
 * if (!verdict.allowed) return tooManyRequests(c, verdict.retryAfterSeconds);
 */

export interface TokenBucketsOptions {
  /** Tokens a key gets back per second: the sustained rate. May be below 1 (10 per 15 minutes). */
  ratePerSecond: number;
  /** Tokens a key holds when full: how many requests may come at once after a quiet spell. */
  burst: number;
  /** Keys remembered at once. Default 10 000. */
  maxKeys?: number;
  /** Clock in epoch milliseconds. Default Date.now. */
  now?: () => number;
}

export interface Verdict {
  allowed: boolean;
  /** Whole seconds until the refused cost could be spent (at least 1); 0 when allowed. */
  retryAfterSeconds: number;
  /** Whole tokens left after this request. */
  remaining: number;
}

export interface Bucket {
  tokens: number;
  /** When `tokens` was last brought up to date (epoch ms). */
  at: number;
}

export class TokenBuckets {
  readonly ratePerSecond: number;
  readonly burst: number;
  readonly #maxKeys: number;
  readonly #now: () => number;
  /** key -> bucket, least recently used first (a use moves the key to the end). */
  readonly #buckets = new Map<string, Bucket>();

  constructor(options: TokenBucketsOptions) {
    if (!(options.ratePerSecond > 0) || !(options.burst >= 1)) {
      throw new RangeError("token buckets need ratePerSecond > 0 and burst >= 1");
    }
    this.ratePerSecond = options.ratePerSecond;
    this.burst = options.burst;
    this.#maxKeys = options.maxKeys ?? 10_000;
    this.#now = options.now ?? Date.now;
  }

  /**
   * `count` at once, refilled steadily at `count` per `periodMs`: the bucket form of a limit like
   * "10 attempts per 15 minutes", without the window's edge (no second 10 right after the first).
   */
  static perPeriod(
    count: number,
    periodMs: number,
    options: Omit<TokenBucketsOptions, "ratePerSecond" | "burst"> = {},
  ) {
    return new TokenBuckets({ ...options, burst: count, ratePerSecond: count / (periodMs / 1000) });
  }

  /**
   * Spends `cost` tokens of `key` (default 1) when it has them; a refusal spends nothing. A cost
   * above the burst could never be paid, so it is charged as the whole burst.
   */
  take(key: string, cost = 1): Verdict {
    const bucket = this.#refilled(key);
    const charge = Math.min(cost, this.burst);
    if (bucket.tokens >= charge) {
      bucket.tokens -= charge;
      return { allowed: true, retryAfterSeconds: 0, remaining: Math.max(0, Math.floor(bucket.tokens)) };
    }
    // The epsilon keeps float dust (2.0000000001 s) from adding a whole second.
    const retryAfterSeconds = Math.max(1, Math.ceil((charge - bucket.tokens) / this.ratePerSecond - 1e-9));
    return { allowed: false, retryAfterSeconds, remaining: Math.max(0, Math.floor(bucket.tokens)) };
  }

  /**
   * The bucket of `key` as of now (created full). Exposed for a store that reconciles buckets with
   * other processes: it may set `tokens` (below 0 is a debt paid back by the refill).
   */
  bucket(key: string): Bucket {
    return this.#refilled(key);
  }

  /** Keys remembered now, least recently used first. */
  keys(): IterableIterator<string> {
    return this.#buckets.keys();
  }

  #refilled(key: string): Bucket {
    const now = this.#now();
    let bucket = this.#buckets.get(key);
    if (bucket) {
      this.#buckets.delete(key);
      bucket.tokens = Math.min(this.burst, bucket.tokens + ((now - bucket.at) / 1000) * this.ratePerSecond);
      bucket.at = now;
    } else {
      bucket = { tokens: this.burst, at: now };
      if (this.#buckets.size >= this.#maxKeys) this.#buckets.delete(this.#buckets.keys().next().value!);
    }
    this.#buckets.set(key, bucket);
    return bucket;
  }
}
