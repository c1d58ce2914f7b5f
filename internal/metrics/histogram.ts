/**
 * Latency histograms with fixed bucket bounds, so memory stays constant however many requests
 * are observed, and percentiles are estimated the way Prometheus's histogram_quantile does.
 */

/** Upper bounds of the latency buckets, in milliseconds. */
export const LATENCY_BUCKETS_MS: readonly number[] = [
  1,
  5,
  10,
  25,
  50,
  100,
  250,
  500,
  1000,
  2500,
  5000,
  10000,
];

export class LatencyHistogram {
  /** Observations per bucket (not cumulative); the extra last slot counts those above every bound. */
  readonly #counts = new Array<number>(LATENCY_BUCKETS_MS.length + 1).fill(0);
  #sumMs = 0;
  #count = 0;

  get count(): number {
    return this.#count;
  }

  get sumMs(): number {
    return this.#sumMs;
  }

  observe(ms: number): void {
    let i = 0;
    while (i < LATENCY_BUCKETS_MS.length && ms > LATENCY_BUCKETS_MS[i]!) i++;
    this.#counts[i]!++;
    this.#sumMs += ms;
    this.#count++;
  }

  /** Cumulative counts per bound of LATENCY_BUCKETS_MS, then the +Inf bucket (equal to `count`). */
  cumulative(): number[] {
    let running = 0;
    return this.#counts.map((n) => (running += n));
  }

  /**
   * The q-quantile in milliseconds, interpolated linearly inside the bucket that holds it (from 0
   * for the first bucket). Above the highest bound the highest bound is returned: the histogram
   * cannot tell more. 0 when nothing was observed.
   */
  quantile(q: number): number {
    if (this.#count === 0) return 0;
    const rank = q * this.#count;
    const cumulative = this.cumulative();
    const i = cumulative.findIndex((c) => c >= rank);
    if (i >= LATENCY_BUCKETS_MS.length) return LATENCY_BUCKETS_MS.at(-1)!;
    const lower = i === 0 ? 0 : LATENCY_BUCKETS_MS[i - 1]!;
    const below = i === 0 ? 0 : cumulative[i - 1]!;
    return lower + (LATENCY_BUCKETS_MS[i]! - lower) * (rank - below) / this.#counts[i]!;
  }

  /** What the JSON metrics show per route and tool: count and p50/p95/p99 in ms (0.1 ms precision). */
  summary(): { count: number; p50: number; p95: number; p99: number } {
    const round = (ms: number) => Math.round(ms * 10) / 10;
    return {
      count: this.#count,
      p50: round(this.quantile(0.5)),
      p95: round(this.quantile(0.95)),
      p99: round(this.quantile(0.99)),
    };
  }
}
