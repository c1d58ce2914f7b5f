import assert from "node:assert/strict";
import { test } from "node:test";
import { formatMicros, parseDuration } from "./duration.ts";

test("parseDuration accepts s/m/h/d/w, fractions and compound forms", () => {
  assert.equal(parseDuration("30s"), 30_000);
  assert.equal(parseDuration("15m"), 900_000);
  assert.equal(parseDuration("2h"), 7_200_000);
  assert.equal(parseDuration("7d"), 604_800_000);
  assert.equal(parseDuration("2w"), 1_209_600_000);
  assert.equal(parseDuration("1h30m"), 5_400_000);
  assert.equal(parseDuration("1.5s"), 1500);
  assert.equal(parseDuration("250ms"), 250);
  assert.equal(parseDuration("500us"), 0.5);
});

test("parseDuration refuses what is not a duration", () => {
  for (const bad of ["", "10", "h", "1y", "-5m", "5 m", "1h junk", "m5"]) {
    assert.equal(parseDuration(bad), undefined, bad);
  }
});

test("formatMicros picks µs, ms or s", () => {
  assert.equal(formatMicros(850), "850µs");
  assert.equal(formatMicros(45_320), "45.32ms");
  assert.equal(formatMicros(1_250_000), "1.25s");
});
