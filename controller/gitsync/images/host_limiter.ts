/**
 * Waiting rate limits per host (seed section 8: registry requests are rate-limited per registry
 * host): each host may send `burst` requests at once and `perSecond` after that; a caller over the
 * limit waits for its turn instead of failing, so a scan of many policies on one registry spreads out.
 */
export interface HostLimiter {
  wait(host: string): Promise<void>;
}

export function hostLimiter(o: { perSecond: number; burst: number; now?: () => number }): HostLimiter {
  const now = o.now ?? Date.now;
  // Per host: the time at which the bucket is full again (tokens are implied by how far ahead it is).
  const fullAt = new Map<string, number>();
  const interval = 1000 / o.perSecond;
  return {
    wait(host) {
      const t = now();
      // A full bucket is `burst` intervals of credit; each request spends one interval.
      const next = Math.max(fullAt.get(host) ?? t, t - (o.burst - 1) * interval) + interval;
      fullAt.set(host, next);
      if (fullAt.size > 10_000) fullAt.clear();
      const delay = next - t - o.burst * interval;
      return delay > 0 ? new Promise((r) => setTimeout(r, delay)) : Promise.resolve();
    },
  };
}
