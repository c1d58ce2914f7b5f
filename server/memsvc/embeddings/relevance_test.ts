/**
 * Pure-vector retrieval quality of the built-in embedder on a hand-labelled set. The figures are
 * printed, not asserted: the service fuses them with full-text search, and a threshold here would
 * only invite tuning the embedder to this one fixture.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { BuiltinEmbedder } from "./builtin.ts";
import { cosine } from "./embedder.ts";

interface Fixture {
  memories: { id: string; content: string }[];
  queries: { query: string; expected: string[] }[];
}

const fixture: Fixture = JSON.parse(
  readFileSync(new URL("../../../test/fixtures/memsvc_relevance.json", import.meta.url), "utf8"),
);

test("the relevance fixture has 200 distinct memories and 30 answerable queries", () => {
  const { memories, queries } = fixture;
  assert.equal(memories.length, 200);
  assert.deepEqual(memories.map((m) => m.id), memories.map((_, i) => `r${String(i + 1).padStart(3, "0")}`));
  assert.equal(new Set(memories.map((m) => m.content)).size, 200);
  for (const { content } of memories) {
    const words = content.split(/\s+/).length;
    assert.ok(words >= 8 && words <= 40, `${words} words: ${content}`);
  }
  const ids = new Set(memories.map((m) => m.id));
  assert.equal(queries.length, 30);
  for (const { query, expected } of queries) {
    assert.ok(expected.length >= 1 && expected.length <= 3, query);
    assert.equal(new Set(expected).size, expected.length, query);
    for (const id of expected) assert.ok(ids.has(id), `${query}: unknown id ${id}`);
  }
});

test("recall@5 and recall@10 of the built-in embedder (printed)", async () => {
  const embedder = new BuiltinEmbedder();
  const vectors = await embedder.embed(fixture.memories.map((m) => m.content));
  const queryVectors = await embedder.embed(fixture.queries.map((q) => q.query));
  const recallAt = (k: number) => {
    let sum = 0;
    fixture.queries.forEach(({ expected }, qi) => {
      const top = vectors
        .map((v, i) => ({ id: fixture.memories[i]!.id, score: cosine(queryVectors[qi]!, v) }))
        .sort((a, b) => b.score - a.score)
        .slice(0, k)
        .map((r) => r.id);
      sum += expected.filter((id) => top.includes(id)).length / expected.length;
    });
    return sum / fixture.queries.length;
  };
  const r5 = recallAt(5), r10 = recallAt(10);
  console.log(`builtin embedder, pure vector: recall@5 = ${r5.toFixed(3)}, recall@10 = ${r10.toFixed(3)}`);
  // Sanity only: far above chance (5/200), so a broken embedder still fails.
  assert.ok(r5 > 0.2, `recall@5 ${r5} is near chance`);
});
