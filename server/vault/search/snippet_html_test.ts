import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { type QueryTerms, snippetHtml } from "./snippet_html.ts";

/** Terms as searchNotes builds them: exact words, their stems, prefixes. */
function queryTerms(stems: string[], exact: string[], prefixes: string[] = []): QueryTerms {
  return { stems: new Set(stems), exact: new Set(exact), prefixes };
}

describe("snippetHtml", () => {
  test("marks stemmed forms, exact words and prefixes", () => {
    const terms = queryTerms(["retri"], ["retries"], ["pagin"]);
    const html = snippetHtml(
      "We retry twice. Retries are capped; pagination stays; retention is other.",
      terms,
    );
    assert.equal(
      html,
      "We <mark>retry</mark> twice. <mark>Retries</mark> are capped; <mark>pagination</mark> stays; retention is other.",
    );
  });

  test("escapes the note's text; only <mark> elements are added", () => {
    const terms = queryTerms([], ["alert"]);
    const html = snippetHtml(`<script>alert("x")</script> & <b onclick='y'>`, terms);
    assert.equal(
      html,
      "&lt;script&gt;<mark>alert</mark>(&quot;x&quot;)&lt;/script&gt; &amp; &lt;b onclick=&#39;y&#39;&gt;",
    );
    assert.doesNotMatch(html.replaceAll("<mark>", "").replaceAll("</mark>", ""), /[<>]/);
  });

  test("a long note is cut around its densest run of matches", () => {
    const filler = Array.from({ length: 200 }, (_, i) => `word${i}`).join(" ");
    const text = `${filler} the budget for error budget reviews ${filler}`;
    const html = snippetHtml(text, queryTerms(["budget"], ["budget"]), 12);
    assert.match(html, /^… word197 word198 word199 the <mark>budget<\/mark> for error <mark>budget<\/mark>/);
    assert.match(html, / …$/);
    assert.ok(html.length < 200);
  });

  test("with no match (or no terms) it is the start of the text, whitespace collapsed", () => {
    const html = snippetHtml("First   line\n\nsecond line", queryTerms([], []));
    assert.equal(html, "First line second line");
  });
});
