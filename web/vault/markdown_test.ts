import assert from "node:assert/strict";
import { test } from "node:test";
import { parseWikiLink, renderMarkdown } from "./markdown.ts";

test("GFM renders: tables, task lists, strikethrough, autolinks", () => {
  const html = renderMarkdown("| a | b |\n|---|---|\n| 1 | 2 |\n\n- [x] done\n\n~~old~~ www.example.com");
  assert.match(html, /<table>/);
  assert.match(html, /<input type="checkbox" disabled="" checked="" \/>/);
  assert.match(html, /<del>old<\/del>/);
  assert.match(html, /<a href="http:\/\/www.example.com">/);
});

test("wiki-links and embeds become escaped links, images and embed placeholders", () => {
  assert.deepEqual(parseWikiLink("Ideas#Next|my ideas"), {
    target: "Ideas",
    heading: "Next",
    alias: "my ideas",
  });
  const html = renderMarkdown("See [[Ideas|my ideas]], ![[pic.png|a cat]] and ![[Other note]].");
  assert.match(html, /<a class="wikilink" href="\?note=Ideas" data-note="Ideas">my ideas<\/a>/);
  assert.match(html, /<img class="embed-image" src="\/api\/attachments\?path=pic.png" alt="a cat">/);
  assert.match(html, /<span class="embed" data-embed="Other note">Other note<\/span>/);
  // In code, a wiki-link stays text.
  assert.match(renderMarkdown("`[[x]]`"), /<code>\[\[x\]\]<\/code>/);
});

test("raw HTML, event handlers and javascript: URLs never come out live", () => {
  const cases = [
    "<script>alert(1)</script>",
    '<img src=x onerror="alert(1)">',
    "[x](javascript:alert(1))",
    "[x](JaVaScRiPt:alert(1))",
    "![x](javascript:alert(1))",
    "[x](data:text/html,<script>alert(1)</script>)",
    '[[x" onmouseover="alert(1)]]',
    '![[a.png" onerror="alert(1)]]',
    "![[<img src=x onerror=alert(1)>]]",
    "[[<script>alert(1)</script>]]",
  ];
  for (const md of cases) {
    const html = renderMarkdown(md);
    assert.doesNotMatch(html, /<script/i, md);
    // Attribute names outside the (escaped) quoted values: never an on… handler.
    for (const [, attrs] of html.matchAll(/<\w+([^>]*)>/g)) {
      assert.doesNotMatch(attrs!.replace(/"[^"]*"/g, '""'), /\son\w+/i, md);
    }
    assert.doesNotMatch(html, /(href|src)="\s*(javascript|data):/i, md);
  }
});

test("front matter is left out of the preview", () => {
  assert.equal(renderMarkdown("---\ntags: [a]\n---\n# Hi").trim(), "<h1>Hi</h1>");
});
