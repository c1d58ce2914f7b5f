import assert from "node:assert/strict";
import { test } from "node:test";
import { parseDateWords } from "./date_words.ts";

// Thursday 2026-03-19, mid-afternoon UTC.
const NOW = new Date("2026-03-19T15:30:00Z");
const day = (iso: string) => new Date(`${iso}T00:00:00Z`).toISOString();

const cases: [string, string, string, string][] = [
  // query, rest, from, to (exclusive)
  [
    "what did I say about the boiler last week",
    "what did I say about the boiler",
    "2026-03-09",
    "2026-03-16",
  ],
  [
    "what did I say about the boiler yesterday",
    "what did I say about the boiler",
    "2026-03-18",
    "2026-03-19",
  ],
  ["what did I say about the boiler today?", "what did I say about the boiler?", "2026-03-19", "2026-03-20"],
  [
    "what did I say about the boiler on Tuesday",
    "what did I say about the boiler",
    "2026-03-17",
    "2026-03-18",
  ],
  ["boiler last Thursday", "boiler", "2026-03-12", "2026-03-13"],
  ["what did I say about the boiler in March", "what did I say about the boiler", "2026-03-01", "2026-04-01"],
  ["boiler in May", "boiler", "2025-05-01", "2025-06-01"],
  ["boiler during June 2024", "boiler", "2024-06-01", "2024-07-01"],
  [
    "what did I say about the boiler 3 days ago",
    "what did I say about the boiler",
    "2026-03-16",
    "2026-03-17",
  ],
  ["boiler two weeks ago", "boiler", "2026-03-02", "2026-03-09"],
  ["boiler a month ago", "boiler", "2026-02-01", "2026-03-01"],
  [
    "what did I say about the boiler on 2026-03-14",
    "what did I say about the boiler",
    "2026-03-14",
    "2026-03-15",
  ],
  ["boiler on March 14th", "boiler", "2026-03-14", "2026-03-15"],
  ["boiler on 2 April", "boiler", "2025-04-02", "2025-04-03"],
  [
    "what did I say about the boiler since Monday",
    "what did I say about the boiler",
    "2026-03-16",
    "2026-03-20",
  ],
  ["boiler since 2026-03-01", "boiler", "2026-03-01", "2026-03-20"],
  ["boiler this week", "boiler", "2026-03-16", "2026-03-20"],
  ["boiler last month", "boiler", "2026-02-01", "2026-03-01"],
];

for (const [query, rest, from, to] of cases) {
  test(`date words: ${query}`, () => {
    const q = parseDateWords(query, NOW);
    assert.equal(q.rest, rest);
    assert.ok(q.window, "a window");
    assert.deepEqual([q.window.from.toISOString(), q.window.to.toISOString()], [day(from), day(to)]);
  });
}

test("a weekday named on its own day means the one a week back", () => {
  const q = parseDateWords("on Thursday", NOW);
  assert.equal(q.window?.from.toISOString(), day("2026-03-12"));
});

for (
  const query of [
    "march forward with the plan",
    "may I ask about the boiler",
    "this may be the boiler",
    "the boiler is on Monday's list",
    "how do I fix a sunday roast",
    "what is my date of birth",
    "boiler pressure 2026-02-30",
    "weekly report",
  ]
) {
  test(`no date words: ${query}`, () => {
    assert.deepEqual(parseDateWords(query, NOW), { rest: query });
  });
}
