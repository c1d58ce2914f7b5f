import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { parseSearchQuery, QUERY_LIMITS, SearchQueryError } from "./parse_search_query.ts";

describe("parseSearchQuery", () => {
  test("words, phrases, prefixes and OR become text clauses", () => {
    const q = parseSearchQuery('retry "connection pool" Pagin* redis OR kafka OR "rate limit"');
    assert.deepEqual(q.include, [
      { type: "word", text: "retry" },
      { type: "phrase", text: "connection pool" },
      { type: "prefix", words: ["pagin"] },
      {
        type: "any",
        of: [{ type: "word", text: "redis" }, { type: "word", text: "kafka" }, {
          type: "phrase",
          text: "rate limit",
        }],
      },
    ]);
    assert.deepEqual(q.exclude, []);
  });

  test("a prefix written with punctuation keeps its words in order, the last one open", () => {
    assert.deepEqual(parseSearchQuery("use-eff*").include, [{ type: "prefix", words: ["use", "eff"] }]);
  });

  test("exclusions and filters, each with its negated form", () => {
    const q = parseSearchQuery(
      'budget -draft -"old plan" tag:Work #Project/Atlas -tag:archived folder:/Projects/2024/ folder:"My Notes" -folder:tmp path:2024- -path:copy',
    );
    assert.deepEqual(q.include, [{ type: "word", text: "budget" }]);
    assert.deepEqual(q.exclude, [{ type: "word", text: "draft" }, { type: "phrase", text: "old plan" }]);
    assert.deepEqual(q.tags, ["work", "project/atlas"]);
    assert.deepEqual(q.excludeTags, ["archived"]);
    assert.deepEqual(q.folders, ["projects/2024", "my notes"]);
    assert.deepEqual(q.excludeFolders, ["tmp"]);
    assert.deepEqual(q.paths, ["2024-"]);
    assert.deepEqual(q.excludePaths, ["copy"]);
  });

  test("filters alone make a query; unknown keys and lower-case or are plain words", () => {
    assert.deepEqual(parseSearchQuery("tag:todo").tags, ["todo"]);
    const q = parseSearchQuery("http://example.test 10:30 this or that");
    assert.deepEqual(q.include.map((c) => c.type === "word" && c.text), [
      "http://example.test",
      "10:30",
      "this",
      "or",
      "that",
    ]);
  });

  test("punctuation-only tokens are dropped, not searched", () => {
    assert.deepEqual(parseSearchQuery("retry && ??").include, [{ type: "word", text: "retry" }]);
  });

  const malformed: [string, RegExp][] = [
    ["", /empty/],
    ["   ", /empty/],
    ["?? !!", /no letters or digits/],
    ["-draft", /only excludes/],
    ["-tag:x -folder:y", /only excludes/],
    ['"unclosed phrase', /quote is not closed/],
    ['folder:"unclosed', /quote is not closed/],
    ["tag:", /tag: needs a tag name/],
    ["folder:/", /folder: needs a folder name/],
    ["path:", /path: needs some text/],
    ["a*", /at least 2 letters/],
    ["*", /at least 2 letters|no letters/],
    ["ab*c", /\* may only end a word/],
    ["ab**", /\* may only end a word/],
    ["OR retry", /OR needs a word or phrase on its left/],
    ["retry OR", /OR needs a word or phrase on its right/],
    ["retry OR OR kafka", /OR needs a word or phrase on its left/],
    ["retry OR -kafka", /OR cannot join an excluded term/],
    ["retry OR tag:x", /OR cannot join filters/],
    ["x".repeat(QUERY_LIMITS.maxLength + 1), /longer than/],
    [Array.from({ length: QUERY_LIMITS.maxClauses + 1 }, (_, i) => `w${i}`).join(" "), /more than 32/],
  ];
  for (const [input, message] of malformed) {
    test(`refuses ${JSON.stringify(input.length > 40 ? input.slice(0, 40) + "…" : input)}`, () => {
      assert.throws(() => parseSearchQuery(input), (err: unknown) => {
        assert.ok(err instanceof SearchQueryError, `expected a SearchQueryError, got ${err}`);
        assert.match(err.message, message);
        return true;
      });
    });
  }

  test("the error says where the problem is", () => {
    let err: SearchQueryError | undefined;
    try {
      parseSearchQuery('retry "open');
    } catch (e) {
      err = e as SearchQueryError;
    }
    assert.equal(err?.position, 6);
  });
});

describe("parseSearchQuery on control characters", () => {
  test("they separate words like spaces (NUL cannot reach PostgreSQL)", () => {
    assert.deepEqual(parseSearchQuery("retry\0budget\ttag:x\u0007").include, [
      { type: "word", text: "retry" },
      { type: "word", text: "budget" },
    ]);
  });
});
