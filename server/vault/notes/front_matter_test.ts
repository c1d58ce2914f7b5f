import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { parse } from "yaml";
import { listField, parseFrontMatter, parseSimpleYaml } from "./front_matter.ts";

// Each block is parsed by the fast path (or refused by it) and by the yaml package; where the fast
// path answers, the answers must be equal.
const BLOCKS = [
  "title: My Note",
  "title: My Note\ntags: [a, b, c]\naliases: [Plan]",
  "tags:\n  - one\n  - two/three\ndraft: true",
  "tags:\n- zero\n- indent",
  "empty:\nnext: 1",
  "n: 42\nf: 1.5\ne: 1e3\nneg: -3\noct: 0o17\nhex: 0xff\nlead: 0123\nbig: 12345678901234567890",
  "b1: True\nb2: FALSE\nn1: null\nn2: ~\nn3: Null",
  "date: 2026-01-05\nversion: 1.2.3\npath: a/b (c)",
  "q: \"quoted: yes\"\ns: 'single # not comment'",
  'esc: "tab\\there"',
  "list: []\nlist2: [ x ,y ]",
  "t: a # comment",
  "time: 12:30",
  "nested:\n  key: value",
  "multi: >\n  folded\n  text",
  "anchor: &a x\nref: *a",
  "dup: 1\ndup: 2",
  "tags: [a, [b]]",
  "tags: [a, ]",
  "title: trailing   ",
  "key:   spaced value",
  "under_score: x\nkebab-key: y",
  "tags:\n  - a\n\n  - b",
  "__proto__: x",
  "crlf: yes\r\nother: no\r\n",
  "- just a list",
  "inf: .inf",
  "u: 1_000",
  "plus: +5",
  "paren: (x)",
];

describe("front matter", () => {
  for (const block of BLOCKS) {
    it(`fast path agrees with yaml: ${JSON.stringify(block).slice(0, 50)}`, () => {
      const fast = parseSimpleYaml(block);
      if (fast === undefined) return;
      assert.deepEqual(fast, parse(block), "fast path disagrees with the yaml package");
    });
  }

  it("reads the common shapes without the full parser", () => {
    for (const b of [BLOCKS[0]!, BLOCKS[1]!, BLOCKS[2]!, BLOCKS[3]!, BLOCKS[5]!, BLOCKS[7]!]) {
      assert.notEqual(parseSimpleYaml(b), undefined, b);
    }
    for (const b of ["t: a # comment", "time: 12:30", "nested:\n  key: value", "dup: 1\ndup: 2"]) {
      assert.equal(parseSimpleYaml(b), undefined, b);
    }
  });

  it("parses the block at the top of a note and reports broken YAML without throwing", () => {
    const text = "---\ntitle: T\ntags: [x]\n---\nbody";
    const fm = parseFrontMatter(text);
    assert.deepEqual(fm.data, { title: "T", tags: ["x"] });
    assert.equal(text.slice(fm.bodyStart), "body");
    assert.deepEqual(parseFrontMatter("no front matter").data, {});
    assert.deepEqual(parseFrontMatter("---\nnot closed").data, {});
    assert.ok(parseFrontMatter("---\na: [b\n---\n").error);
    assert.equal(parseFrontMatter("---\n- a\n---\n").error, "front matter is not a mapping");
    assert.deepEqual(listField({ tags: "a, b c", tag: ["d", 5, { x: 1 }] }, "tags", "tag"), [
      "a",
      "b",
      "c",
      "d",
      "5",
    ]);
  });
});
