import { it } from "node:test";
import assert from "node:assert/strict";
import { Postings } from "./postings.ts";

const view = (n: number) =>
  Postings.of(
    0,
    2,
    Int32Array.from({ length: n }, (_, i) => i),
    new Float32Array(n).fill(1),
    new Uint8Array(n * 2).fill(1),
  );

it("a list read from a snapshot is copied with an eighth more room on its first push, then doubles", () => {
  const p = view(1_000);
  p.push(1_000, [3, 4], 0, 2);
  assert.deepEqual(p.docs.length, 1_125);
  assert.deepEqual([p.length, p.df, p.docs[1_000], p.impacts[1_000]], [1_001, 1_001, 1_000, 2]);
  assert.deepEqual([...p.tfs.subarray(2_000, 2_002)], [3, 4]);
  assert.deepEqual(p.maxImpact, 2);
  for (let doc = 1_001; doc <= 1_125; doc++) p.push(doc, [1, 1], 0, 1);
  assert.deepEqual([p.length, p.docs.length], [1_126, 2_250]);
  assert.deepEqual(p.seek(1_100, 0), 1_100);
});

it("an empty list read from a snapshot takes pushes", () => {
  const p = view(0);
  p.push(7, [1, 0], 0, 0.5);
  assert.deepEqual([p.length, p.docs[0], p.docs.length], [1, 7, 16]);
});

it("a list built by pushes doubles", () => {
  const p = new Postings(0, 1);
  for (let doc = 0; doc < 9; doc++) p.push(doc, [1], 0, 1);
  assert.deepEqual([p.length, p.docs.length], [9, 16]);
});
