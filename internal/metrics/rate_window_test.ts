import assert from "node:assert/strict";
import { test } from "node:test";
import { RateWindow } from "./rate_window.ts";

test("averages the events of the last 60 s over 60 s", () => {
  let now = 1_000_000;
  const rate = new RateWindow(60, () => now);
  for (let s = 0; s < 30; s++) {
    rate.mark(4);
    now += 1000;
  }
  assert.equal(rate.perSecond(), 2); // 120 events / 60 s
});

test("events older than the window stop counting, and reused slots start over", () => {
  let now = 5_000_000;
  const rate = new RateWindow(60, () => now);
  rate.mark(60);
  assert.equal(rate.perSecond(), 1);
  now += 59_000;
  assert.equal(rate.perSecond(), 1, "59 s later the event is still inside the window");
  now += 1_000;
  assert.equal(rate.perSecond(), 0, "60 s later it has left");
  rate.mark(); // the same slot as the first mark, one window later
  assert.equal(rate.perSecond(), 1 / 60);
});
