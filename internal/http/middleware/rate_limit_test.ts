import assert from "node:assert/strict";
import { test } from "node:test";
import { Hono } from "hono";
import { TokenBuckets } from "../token_buckets.ts";
import { rateLimit, tooManyRequests } from "./rate_limit.ts";

function appWith(options: Partial<Parameters<typeof rateLimit>[0]> = {}) {
  let now = 1_000_000;
  const buckets = new TokenBuckets({ ratePerSecond: 1, burst: 2, now: () => now });
  const app = new Hono();
  app.use(rateLimit({ buckets, key: (c) => c.req.header("x-key"), ...options }));
  app.all("*", (c) => c.text("ok"));
  const call = (path = "/", key: string | null = "k") =>
    app.request(path, { headers: key ? { "x-key": key } : {} });
  return { call, advance: (ms: number) => void (now += ms) };
}

test("passes a burst, then answers 429 with Retry-After and the seconds in the body", async () => {
  const { call, advance } = appWith();
  assert.equal((await call()).status, 200);
  assert.equal((await call()).status, 200);
  const refused = await call();
  assert.equal(refused.status, 429);
  assert.equal(refused.headers.get("retry-after"), "1");
  assert.deepEqual(await refused.json(), { error: "too many requests", retryAfterSeconds: 1 });
  advance(1_000);
  assert.equal((await call()).status, 200, "refilled after Retry-After");
});

test("requests without a key, or costing nothing, are not counted", async () => {
  const { call } = appWith({ cost: (c) => (c.req.path === "/stream" ? 0 : 1) });
  for (let i = 0; i < 5; i++) assert.equal((await call("/", null)).status, 200);
  for (let i = 0; i < 5; i++) assert.equal((await call("/stream")).status, 200);
  assert.equal((await call()).status, 200);
  assert.equal((await call()).status, 200);
  assert.equal((await call()).status, 429);
});

test("a cost may be computed from the request, asynchronously", async () => {
  const { call } = appWith({ cost: async (c) => await Promise.resolve(c.req.path === "/two" ? 2 : 1) });
  assert.equal((await call("/two")).status, 200);
  assert.equal((await call("/")).status, 429);
});

test("a custom refusal keeps its body and still gets Retry-After", async () => {
  const { call } = appWith({
    refuse: (c, verdict) => c.json({ custom: true, remaining: verdict.remaining }, 429),
  });
  await call();
  await call();
  const refused = await call();
  assert.equal(refused.status, 429);
  assert.equal(refused.headers.get("retry-after"), "1");
  assert.deepEqual(await refused.json(), { custom: true, remaining: 0 });
});

test("tooManyRequests answers 429 with Retry-After and the seconds in the body", async () => {
  const app = new Hono();
  app.get("/limited", (c) => tooManyRequests(c, 42));
  const res = await app.request("/limited");
  assert.equal(res.status, 429);
  assert.equal(res.headers.get("retry-after"), "42");
  assert.deepEqual(await res.json(), { error: "too many requests", retryAfterSeconds: 42 });
});
