/**
 * Rate limiting with token buckets (internal/http/token_buckets.ts): a request draws `cost` tokens
 * from the bucket its `key` names, or is answered 429 with `Retry-After` (whole seconds) and
 * `{error: "too many requests", retryAfterSeconds}`. A request without a key, or with cost 0, passes
 * uncounted; so does anything before the middleware (put it after the caller is known).
 *
 * @example
 * const buckets = new TokenBuckets({ ratePerSecond: 10, burst: 300 });
 * app.use("/api/*", rateLimit({
 *   buckets,
 *   key: (c) => c.get("caller")?.tokenHash,            // per API key; sessions are not counted
 *   cost: (c) => (c.req.path === "/api/events" ? 0 : 1), // a stream costs nothing
 * }));
 */
import type { Context, Env, MiddlewareHandler } from "hono";
import type { Verdict } from "../token_buckets.ts";

/** What `rateLimit` needs of its buckets: the in-memory TokenBuckets, or a store shared by replicas. */
export interface RateLimitBuckets {
  take(key: string, cost?: number): Verdict | Promise<Verdict>;
}

export interface RateLimitOptions<E extends Env = Env> {
  buckets: RateLimitBuckets;
  /** The bucket the request draws from; undefined lets it through uncounted. */
  key: (c: Context<E>) => string | undefined;
  /** Tokens the request costs (default 1); 0 lets it through uncounted. May read the body. */
  cost?: (c: Context<E>) => number | Promise<number>;
  /** The refusal's body; default `{error, retryAfterSeconds}`. Retry-After is set either way. */
  refuse?: (c: Context<E>, verdict: Verdict) => Response | Promise<Response>;
}

export function rateLimit<E extends Env = Env>(options: RateLimitOptions<E>): MiddlewareHandler<E> {
  return async (c, next) => {
    const key = options.key(c);
    if (key === undefined) return await next();
    const cost = options.cost ? await options.cost(c) : 1;
    if (cost <= 0) return await next();
    const verdict = await options.buckets.take(key, cost);
    if (verdict.allowed) return await next();
    const res = options.refuse
      ? await options.refuse(c, verdict)
      : tooManyRequests(c, verdict.retryAfterSeconds);
    res.headers.set("Retry-After", String(verdict.retryAfterSeconds));
    return res;
  };
}

/** 429 `{error: "too many requests", retryAfterSeconds}` with a matching Retry-After header. */
export function tooManyRequests(c: Context, retryAfterSeconds: number): Response {
  c.header("Retry-After", String(retryAfterSeconds));
  return c.json({ error: "too many requests", retryAfterSeconds }, 429);
}
