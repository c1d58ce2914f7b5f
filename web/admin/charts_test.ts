import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { chartRange, perMinute } from "./charts.tsx";

const NOW = Date.parse("2026-12-06T12:00:30Z");
const at = (iso: string, counts: Record<string, number>) => ({ minute: iso, counts });

describe("activity charts", () => {
  it("fit the range to the activity: a few minutes of work fill the chart, not one pixel of a day", () => {
    const buckets = [at("2026-12-06T11:40:00Z", { remember: 3 }), at("2026-12-06T11:55:00Z", { search: 1 })];
    const r = chartRange(buckets, 0, NOW);
    assert.equal(new Date(r.end).toISOString(), "2026-12-06T12:00:00.000Z");
    // 20 minutes of activity, padded by 5 and stretched to at least 30 minutes.
    assert.equal(new Date(r.start).toISOString(), "2026-12-06T11:30:00.000Z");
    const long = chartRange([at("2026-12-06T02:00:00Z", { remember: 1 })], 0, NOW);
    assert.equal(new Date(long.start).toISOString(), "2026-12-06T01:00:00.000Z", "10 h padded by 1 h");
    assert.equal(
      chartRange([], 0, NOW).end - chartRange([], 0, NOW).start,
      59 * 60_000,
      "no activity: an hour",
    );
    assert.equal(chartRange(buckets, 6, NOW).end - chartRange(buckets, 6, NOW).start, (6 * 60 - 1) * 60_000);
  });

  it("one zero-filled point a minute, bucket counts where they fall", () => {
    const range = chartRange([], 1, NOW);
    const s = perMinute([
      at("2026-12-06T11:59:00Z", { remember: 2 }),
      at("2026-12-06T09:00:00Z", { remember: 9 }),
    ], [
      "remember",
    ], range);
    assert.equal(s.remember!.length, 60);
    assert.deepEqual(s.remember!.at(-2), [Date.parse("2026-12-06T11:59:00Z"), 2]);
    assert.equal(s.remember!.reduce((a, [, v]) => a + v, 0), 2, "outside the range is left out");
  });
});
