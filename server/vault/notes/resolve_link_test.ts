import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { extractLinks } from "./links.ts";
import { PathSet, resolveLink, resolveTarget, shortestLinkText } from "./resolve_link.ts";

const files = new PathSet([
  "Index.md",
  "notes/Plan.md",
  "archive/2020/Plan.md",
  "notes/Unique.md",
  "notes/sub/Child.md",
  "Child.md",
  "assets/image.png",
  "boards/Board.canvas",
  "My Note.md",
]);

describe("resolveTarget", () => {
  const cases: [string, string, string | undefined][] = [
    ["Index", "x.md", "Index.md"],
    ["notes/Plan", "x.md", "notes/Plan.md"],
    ["Plan", "x.md", "notes/Plan.md"], // two named Plan.md: the shorter path wins
    ["2020/Plan", "x.md", "archive/2020/Plan.md"], // a partial path is a suffix match
    ["unique", "x.md", "notes/Unique.md"], // case-insensitive
    ["Child", "notes/sub/Other.md", "Child.md"], // exact root path before relative
    ["sub/Child", "notes/Other.md", "notes/sub/Child.md"], // relative to the note's folder
    ["image.png", "x.md", "assets/image.png"],
    ["Board.canvas", "x.md", "boards/Board.canvas"],
    ["Plan.md", "x.md", "notes/Plan.md"],
    ["", "notes/Plan.md", "notes/Plan.md"], // [[#heading]] is the note itself
    ["Missing", "x.md", undefined],
    ["lan", "x.md", undefined], // a suffix must be a whole name
  ];
  for (const [target, from, want] of cases) {
    it(`${JSON.stringify(target)} from ${from} -> ${want}`, () => {
      assert.equal(resolveTarget(target, from, files), want);
    });
  }

  it("resolves Markdown links by relative path and by shortest form", () => {
    const links = extractLinks(
      "[a](../Index.md) [b](Unique.md) [c](My%20Note.md) [d](nope.md)",
      "notes/x.md",
    );
    assert.deepEqual(links.map((l) => resolveLink(l, "notes/x.md", files)), [
      "Index.md",
      "notes/Unique.md",
      "My Note.md",
      undefined,
    ]);
  });

  it("writes the bare name when it is unique, the full path when not", () => {
    assert.equal(shortestLinkText("notes/Unique.md", files), "Unique");
    assert.equal(shortestLinkText("notes/Plan.md", files), "notes/Plan");
    assert.equal(shortestLinkText("assets/image.png", files), "image.png");
  });

  it("forgets deleted paths", () => {
    const s = new PathSet(["a/N.md", "b/N.md"]);
    s.delete("a/N.md");
    assert.equal(resolveTarget("N", "x.md", s), "b/N.md");
    assert.equal(shortestLinkText("b/N.md", s), "N");
  });
});
