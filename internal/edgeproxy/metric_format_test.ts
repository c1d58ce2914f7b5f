import assert from "node:assert/strict";
import { test } from "node:test";
import { formatByteRate, formatNumber, formatPercent, formatSeconds, sparkline } from "./metric_format.ts";

test("numbers, percentages, latencies and byte rates", () => {
  assert.equal(formatNumber(12.3456), "12.35");
  assert.equal(formatNumber(0.0041234), "0.004123");
  assert.equal(formatNumber(2), "2");
  assert.equal(formatNumber(12345.6), "12346");
  assert.equal(formatNumber(NaN), "NaN");
  assert.equal(formatNumber(Infinity), "+Inf");
  assert.equal(formatPercent(1 / 11), "9.09%");
  assert.equal(formatSeconds(0.0452), "45.2ms");
  assert.equal(formatSeconds(0.00085), "850µs");
  assert.equal(formatSeconds(1.25), "1.25s");
  assert.equal(formatByteRate(512), "512B/s");
  assert.equal(formatByteRate(1536), "1.5KiB/s");
});

test("sparkline scales between min and max; flat and missing points", () => {
  assert.equal(sparkline([0, 1, 2, 3, 4, 5, 6, 7]), "▁▂▃▄▅▆▇█");
  assert.equal(sparkline([5, 5, 5]), "▁▁▁");
  assert.equal(sparkline([1, NaN, 2]), "▁ █");
  assert.equal(sparkline([]), "");
  assert.equal(sparkline([1, 2, 3, 4], 2), "▁█");
});
