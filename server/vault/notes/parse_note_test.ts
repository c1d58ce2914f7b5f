import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { parseNote } from "./parse_note.ts";
import { maskCode } from "./mask_code.ts";

const NOTE = [
  "---",
  "title: Front Title",
  "tags: [project, Alpha]",
  "aliases: Plan",
  "---",
  "# Heading One",
  "Some #inline tag, #nested/tag and #Alpha again; not#atag; #123 is a number.",
  "## Subheading #heading-tag",
  "Inline `#code [[NotALink]]` and ``x ` #neither`` here.",
  "```",
  "#fenced [[Fenced]]",
  "```",
  "~~~~js",
  "[md](fenced.md)",
  "~~~~",
  "Links: [[Other Note]], [[folder/Deep#Section|shown]], ![[image.png]], [[#Local]], [[a\\|b]].",
  'Markdown: [rel](../sibling.md), [spaced](<My Note.md>), [enc](My%20Note.md#Part), ![pic](img/p.png "t").',
  "External: [web](https://example.com/x.md), [mail](mailto:a@b), [frag](#top), [out](../../../etc.md).",
].join("\n");

describe("parseNote", () => {
  const p = parseNote("notes/sub/this.md", NOTE);

  it("reads title from front matter, then the first H1, then the file name", () => {
    assert.equal(p.title, "Front Title");
    assert.equal(parseNote("a/b.md", "intro\n# The H1 #\ntext").title, "The H1");
    assert.equal(parseNote("a/b.md", "```\n# not a title\n```\nplain").title, "b");
  });

  it("collects tags from front matter and body, not from code or headings, case-insensitively once", () => {
    assert.deepEqual(p.tags, ["project", "Alpha", "inline", "nested/tag", "heading-tag"]);
    assert.deepEqual(p.aliases, ["Plan"]);
    assert.deepEqual(parseNote("x.md", "---\ntags: a, b\n---\n#c").tags, ["a", "b", "c"]);
  });

  it("finds wiki links with headings, aliases and embeds, and relative Markdown links", () => {
    const summary = p.links.map((l) =>
      [l.kind, l.embed ? "!" : "", l.target, l.subpath ?? "", l.kind === "wiki" ? l.alias ?? "" : ""].join(
        " ",
      )
    );
    assert.deepEqual(summary, [
      "wiki  Other Note  ",
      "wiki  folder/Deep Section shown",
      "wiki ! image.png  ",
      "wiki   Local ",
      "wiki  a  b",
      "markdown  notes/sibling.md  ",
      "markdown  notes/sub/My Note.md  ",
      "markdown  notes/sub/My Note.md Part ",
      "markdown ! notes/sub/img/p.png  ",
    ]);
  });

  it("keeps offsets that point at the link in the original text", () => {
    for (const l of p.links) {
      const raw = NOTE.slice(l.start, l.end);
      assert.ok(raw.startsWith(l.embed ? "!" : l.kind === "wiki" ? "[[" : "["), raw);
      if (l.kind === "markdown") assert.equal(NOTE.slice(l.destStart, l.destEnd), l.dest);
    }
  });

  it("survives broken front matter", () => {
    const broken = parseNote("x.md", "---\ntitle: [unclosed\n---\n# T\n#tag [[L]]");
    assert.ok(broken.frontMatterError);
    assert.equal(broken.title, "T");
    assert.deepEqual(broken.tags, ["tag"]);
    assert.equal(broken.links.length, 1);
  });

  it("parses 1 MB of unclosed links in linear time (bounded patterns, no backtracking blow-up)", () => {
    const M = 1024 * 1024;
    const hostile = ["[a](b".padEnd(M, "b"), "[[" + "a".repeat(M - 2), "[a](" + "()".repeat(M / 2 - 2)];
    const started = performance.now();
    for (const text of hostile) assert.deepEqual(parseNote("x.md", text).links, []);
    // With unbounded patterns each of these took over a second under Bun (JavaScriptCore, the runtime
    // the binary ships; `bun test` fails this test on them); V8 copes either way.
    assert.ok(performance.now() - started < 1500, `took ${Math.round(performance.now() - started)} ms`);
  });

  it("masks code without moving offsets", () => {
    const text = "a `b` c\n```\nx\n```\nd";
    const masked = maskCode(text);
    assert.equal(masked.length, text.length);
    assert.equal(masked, "a     c\n   \n \n   \nd");
  });
});
