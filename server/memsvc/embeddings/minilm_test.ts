import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { cosine } from "./embedder.ts";
import { MINILM_DIMENSIONS, MiniLMEmbedder } from "./minilm.ts";
import { hostPlatform, NATIVE_PLATFORMS } from "./minilm_assets.ts";

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

for (const runtime of ["native", "wasm"] as const) {
  test(`${runtime}: a query waits for the batch in flight, not behind a long embed call`, {
    timeout: 120_000,
    skip: runtime === "native" && !NATIVE_PLATFORMS[hostPlatform()] ? "no native runtime here" : false,
  }, async () => {
    const e = new MiniLMEmbedder({ runtime });
    assert.equal(await e.load(), runtime);
    const texts = REFERENCE.cases.map((c) => c.text);
    const turns = Array.from({ length: 48 }, (_, i) => `turn ${i}: ${texts[i % texts.length]}`);
    const order: string[] = [];
    const bulk = e.embed(turns).then(() => order.push("bulk"));
    await new Promise((r) => setTimeout(r, 0)); // the bulk call's first batch is running or queued
    const query = e.embed(["where did I go on holiday?"]).then(() => order.push("query"));
    await Promise.all([bulk, query]);
    assert.deepEqual(order, ["query", "bulk"]);
  });
}
