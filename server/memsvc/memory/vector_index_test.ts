import { test } from "node:test";
import assert from "node:assert/strict";
import { BuiltinEmbedder } from "../embeddings/builtin.ts";
import { cosine } from "../embeddings/mod.ts";
import { compact, dense, sparseDot } from "./vector_index.ts";

test("built-in vectors are cached sparse and score exactly as dense ones", async () => {
  const [query, ...stored] = await new BuiltinEmbedder().embed([
    "which database does the billing service use?",
    "The billing service uses PostgreSQL 15 with pgbouncer in transaction mode",
    "Alice prefers tabs over spaces in Go code",
    "Decided to keep retries at three with exponential backoff for the payment webhook",
  ]);
  for (const v of stored) {
    const kept = compact(v);
    assert.ok(!(kept instanceof Float32Array), "a short text's vector is sparse");
    assert.ok(kept.index.length > 0 && kept.index.length * 2 <= v.length);
    assert.deepEqual(dense(kept), v);
    assert.ok(Math.abs(sparseDot(query!, kept) - cosine(query!, v)) < 1e-6);
  }
});

test("dense vectors are kept as they are; mismatched lengths are refused", () => {
  const full = Float32Array.from({ length: 8 }, (_, i) => (i + 1) / 10);
  assert.equal(compact(full), full);
  const one = new Float32Array(8);
  one[3] = 1;
  const kept = compact(one);
  assert.ok(!(kept instanceof Float32Array));
  assert.deepEqual([...kept.index], [3]);
  assert.throws(() => sparseDot(new Float32Array(4), kept), RangeError);
});
