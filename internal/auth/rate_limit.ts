/**
 * A fixed-window rate limiter kept in memory, for the few routes where a guessing or runaway client
 * costs something: sign-in (keyed by email), password changes and token rotation (keyed by user).
 * Per process: several memsvc processes each allow `limit` per window. Memory is bounded: past
 * `maxKeys` the key whose window started longest ago is forgotten, which is the one most likely
 * to have expired already.
 *
 * @example
 * const limiter = createRateLimiter({ limit: 10, windowMs: 60 * 60_000 });
 * const { allowed, retryAfterSeconds } = limiter.hit(caller.userId);
 * if (!allowed) return tooManyRequests(c, retryAfterSeconds);
 */
import type { Context } from "hono";

export interface RateLimiterOptions {
  /** Hits allowed per key in one window. */
  limit: number;
  windowMs: number;
  /** Keys remembered at once. Default 10 000. */
  maxKeys?: number;
  /** Clock in epoch milliseconds. Default Date.now. */
  now?: () => number;
}

export interface RateLimitResult {
  allowed: boolean;
  /** Seconds until the key's window ends when refused; 0 when allowed. */
  retryAfterSeconds: number;
}

export interface RateLimiter {
  /** Counts one attempt for the key and says whether it may go ahead. */
  hit(key: string): RateLimitResult;
}

export function createRateLimiter(options: RateLimiterOptions): RateLimiter {
  const { limit, windowMs, maxKeys = 10_000, now = Date.now } = options;
  /** key -> its current window, in order of window start (oldest first). */
  const windows = new Map<string, { start: number; count: number }>();
  return {
    hit(key) {
      const at = now();
      let window = windows.get(key);
      if (!window || at - window.start >= windowMs) {
        windows.delete(key);
        window = { start: at, count: 0 };
        windows.set(key, window);
        if (windows.size > maxKeys) windows.delete(windows.keys().next().value!);
      }
      window.count++;
      if (window.count <= limit) return { allowed: true, retryAfterSeconds: 0 };
      return { allowed: false, retryAfterSeconds: Math.ceil((window.start + windowMs - at) / 1000) };
    },
  };
}

/** 429 `{error: "too many requests", retryAfterSeconds}` with a matching Retry-After header. */
export function tooManyRequests(c: Context, retryAfterSeconds: number): Response {
  c.header("Retry-After", String(retryAfterSeconds));
  return c.json({ error: "too many requests", retryAfterSeconds }, 429);
}
