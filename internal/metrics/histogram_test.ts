import assert from "node:assert/strict";
import { test } from "node:test";
import { LATENCY_BUCKETS_MS, LatencyHistogram } from "./histogram.ts";

test("an observation lands in the first bucket whose bound it does not exceed", () => {
  const h = new LatencyHistogram();
  for (const ms of [0.2, 1, 1.01, 5, 10000, 10001]) h.observe(ms);
  const cumulative = h.cumulative();
  assert.equal(cumulative.length, LATENCY_BUCKETS_MS.length + 1);
  assert.deepEqual(cumulative.slice(0, 3), [2, 4, 4]); // le 1: 0.2 and 1; le 5: 1.01 and 5
  assert.equal(cumulative[LATENCY_BUCKETS_MS.length - 1], 5); // le 10000
  assert.equal(cumulative.at(-1), 6); // +Inf
  assert.equal(h.count, 6);
  assert.equal(h.sumMs, 0.2 + 1 + 1.01 + 5 + 10000 + 10001);
});

test("cumulative counts never decrease and end at the count", () => {
  const h = new LatencyHistogram();
  for (let i = 0; i < 500; i++) h.observe((i * 37) % 12000);
  const cumulative = h.cumulative();
  for (let i = 1; i < cumulative.length; i++) assert.ok(cumulative[i]! >= cumulative[i - 1]!);
  assert.equal(cumulative.at(-1), 500);
});

test("percentiles interpolate inside the bucket that holds them", () => {
  const h = new LatencyHistogram();
  for (let i = 0; i < 90; i++) h.observe(8); // bucket (5, 10]
  for (let i = 0; i < 10; i++) h.observe(2000); // bucket (1000, 2500]
  assert.equal(h.quantile(0.5), 5 + 5 * (50 / 90));
  assert.equal(h.quantile(0.95), 1000 + 1500 * (5 / 10));
  assert.equal(h.quantile(0.99), 1000 + 1500 * (9 / 10));
  assert.deepEqual(h.summary(), { count: 100, p50: 7.8, p95: 1750, p99: 2350 });
});

test("the first bucket interpolates from 0; beyond the last bound the last bound is the answer", () => {
  const fast = new LatencyHistogram();
  for (let i = 0; i < 4; i++) fast.observe(0.5);
  assert.equal(fast.quantile(0.5), 0.5);
  const slow = new LatencyHistogram();
  slow.observe(60_000);
  assert.equal(slow.quantile(0.99), 10_000);
});

test("an empty histogram reports zeros", () => {
  assert.deepEqual(new LatencyHistogram().summary(), { count: 0, p50: 0, p95: 0, p99: 0 });
});
