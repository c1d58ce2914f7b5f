import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { cosine } from "./embedder.ts";
import { MINILM_DIMENSIONS, MiniLMEmbedder } from "./minilm.ts";

/** Vectors of onnxruntime's CPU provider in Python, each text alone (test/fixtures/memsvc_minilm_reference.py). */
const REFERENCE = JSON.parse(
  readFileSync(new URL("../../../test/fixtures/memsvc_minilm_reference.json", import.meta.url), "utf8"),
) as { cases: { text: string; vector: number[] }[] };

const embedder = new MiniLMEmbedder();

test("each text alone matches the reference vectors", { timeout: 120_000 }, async () => {
  for (const c of REFERENCE.cases) {
    const [v] = await embedder.embed([c.text]);
    assert.equal(v!.length, MINILM_DIMENSIONS);
    const want = Float32Array.from(c.vector);
    const maxDiff = Math.max(...v!.map((x, i) => Math.abs(x - want[i]!)));
    assert.ok(cosine(v!, want) > 0.9999, `${c.text}: cosine ${cosine(v!, want)}`);
    assert.ok(maxDiff < 2e-3, `${c.text}: max difference ${maxDiff}`);
  }
});

test(
  "a batch gives the same vectors, in order, within int8 quantisation's noise",
  { timeout: 120_000 },
  async () => {
    const texts = REFERENCE.cases.map((c) => c.text);
    const batch = await embedder.embed([...texts, texts[0]!]);
    assert.equal(batch.length, texts.length + 1);
    REFERENCE.cases.forEach((c, i) => {
      const sim = cosine(batch[i]!, Float32Array.from(c.vector));
      // The int8 model quantises activations per tensor, so padding shares a scale with the batch.
      assert.ok(sim > 0.99, `${c.text}: cosine ${sim}`);
    });
    assert.deepEqual(await embedder.embed([]), []);
  },
);

test("meaning, not spelling: each query is nearest its paraphrase, not an unrelated text", {
  timeout: 120_000,
}, async () => {
  const cases = [
    [
      "where did I go on holiday?",
      "In July we spent two weeks in Lisbon by the sea.",
      "The quarterly budget review moved to Thursday afternoon.",
    ],
    [
      "a new pet cat",
      "My sister adopted a grey kitten called Pebble.",
      "In July we spent two weeks in Lisbon by the sea.",
    ],
    [
      "how do I get back into my account if I forgot the login?",
      "To recover access, use the reset link sent to your email.",
      "The account balance is shown in the top corner of the form.",
    ],
  ];
  for (const [query, paraphrase, other] of cases) {
    const [q, p, o] = await embedder.embed([query!, paraphrase!, other!]);
    assert.ok(cosine(q!, p!) > cosine(q!, o!) + 0.1, `${query}: ${cosine(q!, p!)} vs ${cosine(q!, o!)}`);
  }
});
