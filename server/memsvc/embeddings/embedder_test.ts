import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { test } from "node:test";
import { cosine, EmbedderError, fromBytes, normalize, toBytes } from "./embedder.ts";

test("cosine of unit vectors is their dot product, including the tail past a multiple of 4", () => {
  const a = new Float32Array([1, 0, 0, 0, 0]);
  const b = new Float32Array([0, 0, 0, 0, 1]);
  const c = new Float32Array([0.6, 0, 0, 0, 0.8]);
  assert.equal(cosine(a, a), 1);
  assert.equal(cosine(a, b), 0);
  assert.ok(Math.abs(cosine(a, c) - 0.6) < 1e-7);
  assert.ok(Math.abs(cosine(b, c) - 0.8) < 1e-7);
  assert.ok(Math.abs(cosine(c, new Float32Array([-0.6, 0, 0, 0, -0.8])) + 1) < 1e-6);
});

test("cosine refuses vectors of different lengths", () => {
  assert.throws(() => cosine(new Float32Array(3), new Float32Array(4)), RangeError);
});

test("normalize scales to unit length and reports an all-zero vector", () => {
  const v = new Float32Array([3, 4]);
  assert.equal(normalize(v), true);
  assert.deepEqual([...v], [0.6000000238418579, 0.800000011920929]);
  const zero = new Float32Array(3);
  assert.equal(normalize(zero), false);
  assert.deepEqual([...zero], [0, 0, 0]);
});

test("toBytes writes little-endian float32 and fromBytes reads it back", () => {
  const v = new Float32Array([1, -2.5, 0.1, Number.MIN_VALUE]);
  const bytes = toBytes(v);
  assert.equal(bytes.byteLength, 16);
  assert.deepEqual([...bytes.subarray(0, 4)], [0x00, 0x00, 0x80, 0x3f]); // 1.0f
  assert.deepEqual([...bytes.subarray(4, 8)], [0x00, 0x00, 0x20, 0xc0]); // -2.5f
  assert.deepEqual(fromBytes(bytes), v);
});

test("toBytes copies: later changes to the vector do not reach the bytes", () => {
  const v = new Float32Array([1, 2]);
  const bytes = toBytes(v);
  v[0] = 9;
  assert.deepEqual(fromBytes(bytes), new Float32Array([1, 2]));
});

test("fromBytes reads a view at an unaligned offset of a larger buffer", () => {
  const v = new Float32Array([0.25, -1, 3.5]);
  const backing = new Uint8Array(3 + 12 + 5);
  backing.set(toBytes(v), 3);
  const view = backing.subarray(3, 15);
  assert.equal(view.byteOffset, 3);
  const back = fromBytes(view);
  assert.deepEqual(back, v);
  backing.fill(0);
  assert.deepEqual(back, v, "the result must not alias the caller's buffer");
});

test("fromBytes copies out of a pooled Node Buffer slice", () => {
  // Small Buffers share one pool at arbitrary offsets, as database drivers return them.
  const v = new Float32Array([1.5, 2.5]);
  const buf = Buffer.concat([Buffer.from([7]), Buffer.from(toBytes(v))]).subarray(1);
  const back = fromBytes(buf);
  assert.deepEqual(back, v);
  buf.fill(0);
  assert.deepEqual(back, v);
});

test("fromBytes rejects a length that is not a multiple of 4", () => {
  assert.throws(() => fromBytes(new Uint8Array(6)), EmbedderError);
});

test("EmbedderError is an Error with its own name and an optional cause", () => {
  const cause = new Error("socket hang up");
  const err = new EmbedderError("embeddings request failed", { cause });
  assert.ok(err instanceof Error);
  assert.equal(err.name, "EmbedderError");
  assert.equal(err.cause, cause);
});
