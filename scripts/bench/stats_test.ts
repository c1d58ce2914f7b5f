import { test } from "node:test";
import assert from "node:assert/strict";
import { percentile, runLoad, summarize } from "./stats.ts";

test("percentile uses the nearest rank", () => {
  const xs = Array.from({ length: 100 }, (_, i) => i + 1);
  assert.equal(percentile(xs, 0.5), 50);
  assert.equal(percentile(xs, 0.95), 95);
  assert.equal(percentile(xs, 0.99), 99);
  assert.equal(percentile(xs, 1), 100);
  assert.equal(percentile([7], 0.99), 7);
  assert.equal(percentile([1, 2, 3], 0.5), 2);
  assert.throws(() => percentile([], 0.5), RangeError);
});

test("summarize sorts its input and does not change it", () => {
  const xs = [5, 1, 4, 2, 3];
  const s = summarize(xs);
  assert.deepEqual(xs, [5, 1, 4, 2, 3]);
  assert.equal(s.n, 5);
  assert.equal(s.p50, 3);
  assert.equal(s.max, 5);
  assert.equal(s.mean, 3);
});

test("runLoad runs every op once and keeps at most `concurrency` in flight", async () => {
  let inFlight = 0;
  let peak = 0;
  const seen: number[] = [];
  const r = await runLoad(50, 4, async (i) => {
    inFlight++;
    peak = Math.max(peak, inFlight);
    await new Promise((res) => setTimeout(res, 1));
    seen.push(i);
    inFlight--;
  });
  assert.equal(r.latency.n, 50);
  assert.equal(peak, 4);
  assert.deepEqual([...seen].sort((a, b) => a - b), Array.from({ length: 50 }, (_, i) => i));
});

test("runLoad fails when an op fails", async () => {
  await assert.rejects(runLoad(3, 2, (i) => i === 1 ? Promise.reject(new Error("boom")) : Promise.resolve()));
});
