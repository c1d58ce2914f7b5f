import assert from "node:assert/strict";
import { test } from "node:test";
import { BGE_SMALL_DIMENSIONS, BGE_SMALL_ID, BGE_SMALL_MODEL, BgeSmallEmbedder } from "./bge_small.ts";
import { createEmbedder } from "./config.ts";
import { cosine } from "./embedder.ts";
import { MINILM_ID } from "./minilm.ts";

const embedder = new BgeSmallEmbedder();

test("MEMSVC_EMBEDDER=builtin-bge-small is bge-small, a vector space of its own", () => {
  const chosen = createEmbedder({ MEMSVC_EMBEDDER: "builtin-bge-small" });
  assert.ok(chosen instanceof BgeSmallEmbedder);
  assert.equal(chosen.id, BGE_SMALL_ID);
  assert.notEqual(chosen.id, MINILM_ID);
  assert.equal(chosen.dimensions, BGE_SMALL_DIMENSIONS);
});

test("unit vectors, the same for a text alone and in a batch", { timeout: 120_000 }, async () => {
  const texts = ["I love skiing, it's my favourite sport.", "The meeting moved to Tuesday.", "ok"];
  const batch = await embedder.embed(texts);
  assert.equal(batch.length, 3);
  for (const [i, text] of texts.entries()) {
    const v = batch[i]!;
    assert.equal(v.length, BGE_SMALL_DIMENSIONS);
    assert.ok(Math.abs(Math.hypot(...v) - 1) < 1e-5);
    const [alone] = await embedder.embed([text]);
    // Padding shares the int8 activations' scale with the batch: near, not equal.
    assert.ok(cosine(alone!, v) > 0.99, `${text}: ${cosine(alone!, v)}`);
  }
  assert.deepEqual(await embedder.embed([]), []);
});

test("a query carries the retrieval instruction; stored texts do not", { timeout: 120_000 }, async () => {
  const query = "What are Kate's hobbies?";
  const [plain] = await embedder.embed([query]);
  const [instructed] = await embedder.embed([BGE_SMALL_MODEL.queryPrefix + query]);
  const asQuery = await embedder.embedQuery(query);
  assert.ok(cosine(asQuery, instructed!) > 0.9999);
  assert.ok(cosine(asQuery, plain!) < 0.99, "the instruction moves the query's vector");
});

test("meaning, not spelling: each query is nearest what answers it", { timeout: 120_000 }, async () => {
  const cases = [
    [
      "What are Kate's hobbies?",
      "Me, I love skiing, it's my favourite sport.",
      "The flight lands at nine tonight.",
    ],
    [
      "where did I go on holiday?",
      "In July we spent two weeks in Lisbon by the sea.",
      "The quarterly budget review moved to Thursday afternoon.",
    ],
    [
      "how do I get back into my account if I forgot the login?",
      "To recover access, use the reset link sent to your email.",
      "The account balance is shown in the top corner of the form.",
    ],
  ];
  for (const [query, answer, other] of cases) {
    const q = await embedder.embedQuery(query!);
    const [a, o] = await embedder.embed([answer!, other!]);
    assert.ok(cosine(q, a!) > cosine(q, o!) + 0.05, `${query}: ${cosine(q, a!)} vs ${cosine(q, o!)}`);
  }
});
