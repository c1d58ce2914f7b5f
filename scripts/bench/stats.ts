/** Latency summaries: nearest-rank percentiles over milliseconds. */

export interface LatencySummary {
  n: number;
  p50: number;
  p95: number;
  p99: number;
  mean: number;
  min: number;
  max: number;
}

/** The nearest-rank percentile (the smallest value with at least q of the samples at or below it). */
export function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) throw new RangeError("percentile of no samples");
  if (q <= 0) return sorted[0]!;
  const rank = Math.ceil(q * sorted.length);
  return sorted[Math.min(sorted.length, rank) - 1]!;
}

export function summarize(samples: readonly number[]): LatencySummary {
  const sorted = [...samples].sort((a, b) => a - b);
  const round = (x: number) => Math.round(x * 100) / 100;
  return {
    n: sorted.length,
    p50: round(percentile(sorted, 0.5)),
    p95: round(percentile(sorted, 0.95)),
    p99: round(percentile(sorted, 0.99)),
    mean: round(sorted.reduce((s, x) => s + x, 0) / sorted.length),
    min: round(sorted[0]!),
    max: round(sorted[sorted.length - 1]!),
  };
}

export interface LoadResult {
  latency: LatencySummary;
  /** Completed operations per second of wall time. */
  throughput: number;
  wallMs: number;
}

/**
 * Runs `op(i)` for i in [0, n) with `concurrency` workers, each timing its own calls; every op
 * must succeed (a failure stops the run, so a figure never hides errors).
 */
export async function runLoad(
  n: number,
  concurrency: number,
  op: (i: number) => Promise<void>,
  progress?: (done: number) => void,
): Promise<LoadResult> {
  const samples = new Array<number>(n);
  let next = 0;
  let done = 0;
  const start = performance.now();
  const worker = async () => {
    for (let i = next++; i < n; i = next++) {
      const t = performance.now();
      await op(i);
      samples[i] = performance.now() - t;
      if (++done % 1000 === 0) progress?.(done);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, n) }, worker));
  const wallMs = performance.now() - start;
  return {
    latency: summarize(samples),
    throughput: Math.round((n / wallMs) * 1000),
    wallMs: Math.round(wallMs),
  };
}
