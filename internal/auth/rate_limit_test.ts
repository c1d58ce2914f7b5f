import assert from "node:assert/strict";
import { test } from "node:test";
import { createApp } from "../http/mod.ts";
import { silentLogger } from "../log/mod.ts";
import { createRateLimiter, tooManyRequests } from "./rate_limit.ts";

function clock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
}

test("allows `limit` hits per window, then refuses until the window ends", () => {
  const time = clock();
  const limiter = createRateLimiter({ limit: 2, windowMs: 10_000, now: time.now });
  assert.deepEqual(limiter.hit("a"), { allowed: true, retryAfterSeconds: 0 });
  assert.deepEqual(limiter.hit("a"), { allowed: true, retryAfterSeconds: 0 });
  assert.deepEqual(limiter.hit("a"), { allowed: false, retryAfterSeconds: 10 });
  time.advance(8_500);
  assert.deepEqual(limiter.hit("a"), { allowed: false, retryAfterSeconds: 2 });
  time.advance(1_499);
  assert.deepEqual(limiter.hit("a"), { allowed: false, retryAfterSeconds: 1 });
  time.advance(1);
  assert.deepEqual(limiter.hit("a"), { allowed: true, retryAfterSeconds: 0 });
});

test("keys are counted separately", () => {
  const limiter = createRateLimiter({ limit: 1, windowMs: 60_000, now: clock().now });
  assert.equal(limiter.hit("alice").allowed, true);
  assert.equal(limiter.hit("alice").allowed, false);
  assert.equal(limiter.hit("bob").allowed, true);
});

test("past maxKeys the key with the oldest window is forgotten", () => {
  const time = clock();
  const limiter = createRateLimiter({ limit: 1, windowMs: 60_000, maxKeys: 2, now: time.now });
  limiter.hit("old");
  time.advance(1);
  limiter.hit("mid");
  assert.equal(limiter.hit("old").allowed, false, "a refused hit must not refresh the window");
  time.advance(1);
  limiter.hit("new");
  assert.equal(limiter.hit("mid").allowed, false);
  assert.equal(limiter.hit("new").allowed, false);
  assert.equal(limiter.hit("old").allowed, true, "old was evicted, so it starts over");
});

test("tooManyRequests answers 429 with Retry-After and the seconds in the body", async () => {
  const app = createApp({ log: silentLogger });
  app.get("/limited", (c) => tooManyRequests(c, 42));
  const res = await app.request("/limited", undefined, { remoteAddr: "127.0.0.1" });
  assert.equal(res.status, 429);
  assert.equal(res.headers.get("retry-after"), "42");
  assert.deepEqual(await res.json(), { error: "too many requests", retryAfterSeconds: 42 });
});
