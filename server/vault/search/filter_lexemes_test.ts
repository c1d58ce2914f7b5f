import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { filterTsqueryText, folderKeys, noteLexemes } from "./filter_lexemes.ts";
import { parseSearchQuery } from "./parse_search_query.ts";

describe("filter lexemes", () => {
  test("a note carries its owner, tags and every folder above it", () => {
    assert.deepEqual(folderKeys("Work/2024/Q1"), ["work", "work/2024", "work/2024/q1"]);
    assert.deepEqual(folderKeys(""), []);
    assert.deepEqual(noteLexemes("u1", "Work/2024", ["project/atlas", "project"]), [
      "u u1",
      "t project/atlas",
      "t project",
      "f work",
      "f work/2024",
    ]);
  });

  test("a query's filters become quoted tsquery text: one owner, all tags, one folder, none excluded", () => {
    const q = parseSearchQuery('x tag:a tag:b folder:w folder:"it\'s" -tag:c -folder:tmp');
    assert.equal(
      filterTsqueryText(["me", "o'wner", "me"], q),
      "( 'u me' | 'u o''wner' ) & 't a' & 't b' & ( 'f w' | 'f it''s' ) & !'t c' & !'f tmp'",
    );
    assert.equal(filterTsqueryText(["me"], parseSearchQuery("x")), "( 'u me' )");
    assert.equal(filterTsqueryText(["a\\b"], parseSearchQuery("x")), "( 'u a\\\\b' )");
  });
});
