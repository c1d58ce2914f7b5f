import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { formatAge, formatServerTable, humanDuration } from "./table.ts";

const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;

describe("humanDuration (kubectl's AGE)", () => {
  // The vectors of /work/shared/notes/edgectl.md §3: from apimachinery's tests, then derived from its rules.
  const cases: [number, string][] = [
    [119 * S, "119s"],
    [5 * M + 30 * S, "5m30s"],
    [5 * H, "5h"],
    [36 * H, "36h"],
    [50 * H, "2d2h"],
    [10 * D, "10d"],
    [-2 * S, "<invalid>"],
    [-1 * S, "0s"],
    [-1.9 * S, "0s"],
    [0, "0s"],
    [120 * S, "2m"],
    [9 * M + 59 * S, "9m59s"],
    [10 * M, "10m"],
    [179 * M, "179m"],
    [180 * M, "3h"],
    [7 * H + 59 * M, "7h59m"],
    [8 * H, "8h"],
    [47 * H + 59 * M, "47h"],
    [48 * H, "2d"],
    [7 * D + 23 * H, "7d23h"],
    [8 * D, "8d"],
    [729 * D, "729d"],
    [730 * D, "2y"],
    [731 * D, "2y1d"],
    [2919 * D, "7y364d"],
    [2920 * D, "8y"],
    // Parts truncate: 1.9 s is 1 s, 5m30.999s is 5m30s.
    [1.9 * S, "1s"],
    [5 * M + 30 * S + 999, "5m30s"],
    [3 * H + 15 * M + 59 * S, "3h15m"],
  ];
  for (const [ms, want] of cases) {
    it(`${ms} ms -> ${want}`, () => assert.equal(humanDuration(ms), want));
  }
});

describe("formatAge", () => {
  const now = new Date("2026-11-22T12:00:00Z");
  it("measures from a creationTimestamp", () => {
    assert.equal(formatAge("2026-11-22T11:54:30Z", now), "5m30s");
    assert.equal(formatAge(new Date("2026-11-20T10:00:00Z"), now), "2d2h");
  });
  it("prints <unknown> without a usable timestamp", () => {
    assert.equal(formatAge(undefined, now), "<unknown>");
    assert.equal(formatAge("yesterday", now), "<unknown>");
  });
  it("prints <invalid> for a timestamp in the future (clock skew)", () => {
    assert.equal(formatAge("2026-11-22T12:00:05Z", now), "<invalid>");
  });
});

describe("formatServerTable", () => {
  const table = {
    columnDefinitions: [
      { name: "Name", type: "string", priority: 0 },
      { name: "Ready", type: "string", priority: 0 },
      { name: "Hostnames", type: "string", priority: 1 },
      { name: "Age", type: "string", priority: 0 },
    ],
    rows: [
      {
        cells: ["main", "True", ["a.example.com", "b.example.com"], "5m"],
        object: { metadata: { name: "main", namespace: "edge", labels: { app: "web", tier: "front" } } },
      },
      { cells: ["x", null, [], "10d"], object: { metadata: { name: "x", namespace: "default" } } },
    ],
  };

  it("prints priority-0 columns in kubectl's layout, <none> for empty cells", () => {
    assert.equal(
      formatServerTable(table),
      "NAME   READY    AGE\n" +
        "main   True     5m\n" +
        "x      <none>   10d\n",
    );
  });

  it("adds NAMESPACE for -A, the wide columns for -o wide, and LABELS", () => {
    assert.equal(
      formatServerTable(table, { withNamespace: true, wide: true, showLabels: true }),
      "NAMESPACE   NAME   READY    HOSTNAMES                     AGE   LABELS\n" +
        "edge        main   True     a.example.com,b.example.com   5m    app=web,tier=front\n" +
        "default     x      <none>   <none>                        10d   <none>\n",
    );
  });

  it("prints nothing for an empty table (the caller reports 'No resources found')", () => {
    assert.equal(formatServerTable({ columnDefinitions: table.columnDefinitions, rows: [] }), "");
  });
});
