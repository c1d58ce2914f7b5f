import assert from "node:assert/strict";
import { test } from "node:test";
import { FullTextIndex, parseQuery } from "../../../internal/fulltext/mod.ts";
import { stem } from "../../../internal/fulltext/analyzer.ts";
import {
  decodeNeighbours,
  encodeNeighbours,
  expandQuery,
  EXPANSION_WEIGHT,
  loadNeighbours,
  type Neighbours,
} from "./query_expansion.ts";
import { BUILTIN_ID, STATIC_ID } from "../embeddings/mod.ts";
import { fusionFor } from "./fusion.ts";
import { KEYWORD_FIELDS } from "./keyword_index.ts";

const NEIGHBOURS: Neighbours = new Map([
  [stem("dog"), [[stem("puppy"), 0.7], [stem("pet"), 0.6]]],
  [stem("called"), [[stem("named"), 0.4], [stem("dog"), 0.3]]],
]);

test("a query's stems bring in their neighbours, weighted below the query's own", () => {
  const q = expandQuery(parseQuery("What is my new dog called?"), NEIGHBOURS);
  assert.equal(q.terms.get(stem("dog")), 1, "a neighbour that is a query stem keeps its own weight");
  assert.equal(q.terms.get(stem("puppy")), EXPANSION_WEIGHT * 0.7);
  assert.equal(q.terms.get(stem("named")), EXPANSION_WEIGHT * 0.4);
  assert.equal(expandQuery(parseQuery("dog"), null).terms.size, 1);
  // Phrases and exclusions are left alone.
  const p = expandQuery(parseQuery('"dog walker" -cat'), NEIGHBOURS);
  assert.deepEqual(p.phrases, [[stem("dog"), stem("walker")]]);
  assert.deepEqual(p.excluded, [stem("cat")]);
});

test("an answer in other words is found, and ranks below one in the question's words", () => {
  const index = new FullTextIndex({ content: { weight: 1 } });
  index.add("answer", { content: "We adopted a beagle puppy and named her Pepper." }, undefined);
  index.add("literal", { content: "The dog next door is called Rex." }, undefined);
  index.add("other", { content: "The marina raised the mooring fees again." }, undefined);
  const query = parseQuery("What is my new dog called?");
  assert.deepEqual(index.search(query, 10).map((h) => h.id), ["literal"]);
  assert.deepEqual(index.search(expandQuery(query, NEIGHBOURS), 10).map((h) => h.id), ["literal", "answer"]);
});

test("each embedder's blend sets how far expansion lifts a paraphrase against one literal word", () => {
  const index = new FullTextIndex(KEYWORD_FIELDS);
  index.add("answer", { content: "We adopted a beagle puppy and named her Pepper." }, undefined);
  index.add("literal", { content: "How often should a dog see the vet?" }, undefined);
  index.add("other", { content: "The marina raised the mooring fees again." }, undefined);
  const query = parseQuery("What is my new dog called?");
  const order = (weight: number) => index.search(expandQuery(query, NEIGHBOURS, weight), 10).map((h) => h.id);
  // The old default: the neighbours' 0.3 × cosine stays below one word of the question.
  assert.deepEqual(order(EXPANSION_WEIGHT), ["literal", "answer"]);
  // The hashing embedder knows no synonyms, so its blend lets two of them outweigh that word...
  assert.deepEqual(order(fusionFor(BUILTIN_ID).expansion), ["answer", "literal"]);
  // ...and builtin-static's, whose vector tier finds paraphrases itself, sits between.
  const own = fusionFor(STATIC_ID).expansion;
  assert.ok(own > EXPANSION_WEIGHT && own < fusionFor(BUILTIN_ID).expansion, String(own));
});

test("the built table relates everyday words (from .cache/minilm or the binary)", async () => {
  const neighbours = await loadNeighbours();
  assert.ok(neighbours, "no word-neighbour table: run `deno run -A scripts/lib/minilm.ts`");
  assert.ok(neighbours.size > 10_000, `${neighbours.size} stems`); // 13,995 stems of 21,571 words
  const of = (w: string) => (neighbours.get(stem(w)) ?? []).map(([s]) => s);
  assert.ok(of("dog").includes(stem("puppy")) || of("dog").includes(stem("pet")), of("dog").join(" "));
  for (const s of neighbours.keys()) {
    const list = neighbours.get(s)!;
    assert.ok(list.length >= 1 && list.length <= 5);
    for (let i = 1; i < list.length; i++) assert.ok(list[i - 1]![1] >= list[i]![1]);
  }
});

test("the packed table reads back what was written, unicode stems and short lists included", () => {
  const table = new Map<string, [string, number][]>([
    ["café", [["coffe", 0.83], ["tea", 0.5]]],
    ["dog", [["puppi", 0.7], ["pet", 0.6], ["café", 0.11], ["zoo", 0.1], ["ark", 0.02]]],
    ["lone", []],
  ]);
  const bytes = encodeNeighbours(table, 5);
  for (const copy of [bytes, Uint8Array.of(0, ...bytes).subarray(1)]) { // aligned and not
    const read = decodeNeighbours(copy);
    assert.equal(read.size, 3);
    for (const [s, list] of table) assert.deepEqual(read.get(s), list, s);
    assert.equal(read.get("coffe"), undefined, "a neighbour is not a key");
  }
  assert.throws(() => encodeNeighbours(table, 4), RangeError);
  assert.throws(() => decodeNeighbours(new Uint8Array(24)), /not a word-neighbour table/);
});
