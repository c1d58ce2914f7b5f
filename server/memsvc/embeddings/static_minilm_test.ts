import assert from "node:assert/strict";
import { test } from "node:test";
import { cosine } from "./embedder.ts";
import { MiniLMEmbedder } from "./minilm.ts";
import {
  readStaticTable,
  STATIC_DIMENSIONS,
  STATIC_ID,
  StaticEmbedder,
  writeStaticTable,
} from "./static_minilm.ts";

const embedder = new StaticEmbedder();

test("the table file round-trips, quantised per row within half a step", () => {
  const rows = 3, dims = 4;
  const vectors = Float32Array.from([0.5, -1, 0.25, 0, 2, 2, -2, 1, 0, 0, 0, 0]);
  const table = readStaticTable(writeStaticTable(vectors, rows, dims));
  assert.equal(table.rows, rows);
  assert.equal(table.dims, dims);
  for (let r = 0; r < rows; r++) {
    for (let k = 0; k < dims; k++) {
      const got = table.values[r * dims + k]! * table.scales[r]!;
      assert.ok(Math.abs(got - vectors[r * dims + k]!) <= table.scales[r]! / 2 + 1e-9, `row ${r} col ${k}`);
    }
  }
  assert.throws(() => readStaticTable(new Uint8Array(16)), /not a static embedding table/);
});

test("vectors are unit length, deterministic and in the declared space", async () => {
  assert.equal(embedder.id, STATIC_ID);
  const texts = ["We adopted a beagle puppy last weekend.", "", "?!", "the and of", "Ünïcödé café"];
  const [a, b] = [await embedder.embed(texts), await embedder.embed(texts)];
  for (const [i, v] of a.entries()) {
    assert.equal(v.length, STATIC_DIMENSIONS);
    assert.ok(Math.abs(cosine(v, v) - 1) < 1e-5, `${JSON.stringify(texts[i])} is not unit length`);
    assert.deepEqual(v, b[i]);
  }
  // Stop words only: the words themselves, not the fallback direction of an empty text.
  assert.ok(cosine(a[3]!, a[1]!) < 0.99);
  assert.deepEqual(await embedder.embed([]), []);
});

test("it relates words the hashing embedder cannot (other words for the same thing)", async () => {
  const [question, answer, nearMiss] = await embedder.embed([
    "What is my new dog called?",
    "We adopted a beagle puppy last weekend and named her Pepper.",
    "The marina raised the mooring fees for sailboats again this year.",
  ]);
  assert.ok(
    cosine(question!, answer!) > cosine(question!, nearMiss!) + 0.1,
    `answer ${cosine(question!, answer!)}, unrelated ${cosine(question!, nearMiss!)}`,
  );
});

test("its vectors lean the way the full model's do", { timeout: 120_000 }, async () => {
  // Not equal (no context, no word order), but a text's nearest neighbour among a few is the same.
  const texts = [
    "How do I deploy the API to production?",
    "Rolling out the service to the live environment",
    "My favourite pasta recipe uses fresh basil",
    "Cooking spaghetti with tomatoes and herbs",
  ];
  const full = await new MiniLMEmbedder().embed(texts);
  const mine = await embedder.embed(texts);
  const nearest = (vs: Float32Array[], i: number) =>
    vs.map((v, j) => ({ j, s: j === i ? -Infinity : cosine(vs[i]!, v) })).sort((x, y) => y.s - x.s)[0]!.j;
  for (let i = 0; i < texts.length; i++) assert.equal(nearest(mine, i), nearest(full, i), texts[i]);
});
