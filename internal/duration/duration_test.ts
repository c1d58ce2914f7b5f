import assert from "node:assert/strict";
import { test } from "node:test";
import { parseDuration } from "./duration.ts";

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

test("parseDuration takes only the units it is given", () => {
  const go = ["ms", "s", "m", "h"];
  assert.equal(parseDuration("1h30m", go), 5_400_000);
  for (const bad of ["7d", "2w", "500us", "5m1d"]) assert.equal(parseDuration(bad, go), undefined, bad);
});
