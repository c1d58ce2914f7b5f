/**
 * Token buckets per key (rate limits with bursts): each key may spend `burst` tokens at once and
 * gets `perSecond` back each second. Memory is bounded: at `maxKeys` keys the map starts afresh,
 * which at worst lets a burst through again.
 */
export interface TokenBucketsOptions {
  perSecond: number;
  burst: number;
  maxKeys?: number;
  now?: () => number;
}

export class TokenBuckets {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly maxKeys: number;
  private readonly now: () => number;

  constructor(private readonly o: TokenBucketsOptions) {
    this.maxKeys = o.maxKeys ?? 10_000;
    this.now = o.now ?? Date.now;
  }

  /** Spends one token of `key`; false when none is left. */
  take(key: string): boolean {
    const at = this.now();
    let b = this.buckets.get(key);
    if (!b) {
      if (this.buckets.size >= this.maxKeys) this.buckets.clear();
      this.buckets.set(key, b = { tokens: this.o.burst, at });
    }
    b.tokens = Math.min(this.o.burst, b.tokens + ((at - b.at) / 1000) * this.o.perSecond);
    b.at = at;
    if (b.tokens < 1) return false;
    b.tokens -= 1;
    return true;
  }
}
