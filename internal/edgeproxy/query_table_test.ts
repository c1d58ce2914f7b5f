import assert from "node:assert/strict";
import { test } from "node:test";
import { queryTable } from "./query_table.ts";

test("vector: NAME then the labels sorted, then VALUE; missing labels stay empty", () => {
  const t = queryTable({
    resultType: "vector",
    result: [
      { metric: { __name__: "up", job: "edge", instance: "a:1" }, value: [1700000000, "1"] },
      { metric: { __name__: "up", job: "edge" }, value: [1700000000, "0.123456"] },
    ],
  });
  assert.deepEqual(t.headers, ["NAME", "instance", "job", "VALUE"]);
  assert.deepEqual(t.rows, [["up", "a:1", "edge", "1"], ["up", undefined, "edge", "0.1235"]]);
});

test("matrix: samples, min, max, last and a sparkline per series", () => {
  const t = queryTable({
    resultType: "matrix",
    result: [{ metric: { node: "n1" }, values: [[1, "1"], [2, "3"], [3, "2"]] }],
  });
  assert.deepEqual(t.headers, ["node", "SAMPLES", "MIN", "MAX", "LAST", "TREND"]);
  assert.deepEqual(t.rows, [["n1", 3, "1", "3", "2", "▁█▅"]]);
});

test("scalar: TIME and VALUE", () => {
  const t = queryTable({ resultType: "scalar", result: [1700000000, "42"] });
  assert.deepEqual(t.rows, [["2023-11-14T22:13:20.000Z", "42"]]);
});
