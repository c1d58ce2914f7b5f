import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { nearest, niceTop } from "./line_chart.tsx";

describe("line chart", () => {
  it("tops the axis with a round number", () => {
    assert.equal(niceTop(51.45), 60);
    assert.equal(niceTop(1), 1);
    assert.equal(niceTop(0.093), 0.1);
    assert.equal(niceTop(2.71), 3);
    assert.equal(niceTop(0), 1);
  });

  it("finds the sample nearest to the pointer's time", () => {
    const pts: [number, number][] = [[0, 1], [10, 2], [20, 3]];
    assert.equal(nearest(pts, -5), 0);
    assert.equal(nearest(pts, 4), 0);
    assert.equal(nearest(pts, 6), 1);
    assert.equal(nearest(pts, 15), 1, "a tie goes to the earlier sample");
    assert.equal(nearest(pts, 99), 2);
    assert.equal(nearest([], 1), -1);
  });
});
