import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { rewriteLinks } from "./link_rewrite.ts";
import { PathSet } from "./resolve_link.ts";

function ctx(before: string[], moves: [string, string][]) {
  const m = new Map(moves);
  return { moves: m, before: new PathSet(before), after: new PathSet(before.map((p) => m.get(p) ?? p)) };
}

describe("rewriteLinks", () => {
  const files = ["Plan.md", "other/Plan.md", "Unique.md", "notes/Source.md", "img/pic.png", "My Note.md"];

  it("rewrites wiki links of every form to a moved note, keeping headings, aliases and embeds", () => {
    const c = ctx(files, [["Unique.md", "archive/Renamed.md"]]);
    const text = "[[Unique]] [[Unique#Sec|alias]] ![[Unique]] [[Unique.md]] [[Plan]] `[[Unique]]`";
    assert.equal(
      rewriteLinks(text, "notes/Source.md", "notes/Source.md", c),
      "[[Renamed]] [[Renamed#Sec|alias]] ![[Renamed]] [[Renamed.md]] [[Plan]] `[[Unique]]`",
    );
  });

  it("writes a path when the new name is not unique, and keeps path-style links path-style", () => {
    const c = ctx(files, [["Unique.md", "deep/Plan.md"]]);
    assert.equal(rewriteLinks("[[Unique]]", "notes/Source.md", "notes/Source.md", c), "[[deep/Plan]]");
    const c2 = ctx(files, [["other/Plan.md", "x/Idea.md"]]);
    assert.equal(rewriteLinks("see [[other/Plan|p]]", "Unique.md", "Unique.md", c2), "see [[x/Idea|p]]");
  });

  it("rewrites relative Markdown links, encoded or in <>, with fragments", () => {
    const c = ctx(files, [["My Note.md", "a/b/Their Note.md"], ["img/pic.png", "media/pic.png"]]);
    const text =
      "[x](../My%20Note.md#Part) [y](<../My Note.md>) ![p](../img/pic.png) [z](https://e.com/My Note.md)";
    assert.equal(
      rewriteLinks(text, "notes/Source.md", "notes/Source.md", c),
      "[x](../a/b/Their%20Note.md#Part) [y](<../a/b/Their Note.md>) ![p](../media/pic.png) [z](https://e.com/My Note.md)",
    );
  });

  it("re-bases the moved note's own relative links and leaves wiki links alone", () => {
    const c = ctx(files, [["notes/Source.md", "deep/er/Source.md"]]);
    const text = "[u](../Unique.md) [[Unique]] [s](Unique.md)";
    assert.equal(
      rewriteLinks(text, "notes/Source.md", "deep/er/Source.md", c),
      "[u](../../Unique.md) [[Unique]] [s](Unique.md)",
    );
  });

  it("re-bases a relative link that would climb above the vault from the note's new folder", () => {
    const c = ctx(["a/b/Source.md", "People/Ann.md"], [["a/b/Source.md", "Source.md"]]);
    assert.equal(
      rewriteLinks("[ann](../../People/Ann.md) [[Ann]]", "a/b/Source.md", "Source.md", c),
      "[ann](People/Ann.md) [[Ann]]",
    );
  });

  it("returns undefined when nothing points at a moved file", () => {
    const c = ctx(files, [["Unique.md", "U2.md"]]);
    assert.equal(rewriteLinks("[[Plan]] [[Missing]] [a](Plan.md)", "x.md", "x.md", c), undefined);
  });
});
