import assert from "node:assert/strict";
import { test } from "node:test";
import { BUILTIN_ID, MINILM_ID, STATIC_ID } from "../embeddings/mod.ts";
import {
  fuse,
  type Fusion,
  fusionFor,
  HASH_FUSION,
  MINILM_FUSION,
  STATIC_FUSION,
  type TierScores,
  Z_SAMPLE,
} from "./fusion.ts";

const both = { keyword: true, vector: true };
const order = (r: { id: string; fused: number }[]) =>
  [...r].sort((a, b) => b.fused - a.fused).map((x) => x.id);

test("each embedder gets its own blend", () => {
  assert.equal(fusionFor(BUILTIN_ID), HASH_FUSION);
  assert.equal(fusionFor(MINILM_ID), MINILM_FUSION);
  assert.equal(fusionFor(STATIC_ID), STATIC_FUSION);
  assert.equal(fusionFor("openai:text-embedding-3-small:1536"), HASH_FUSION);
});

test("linear: weighted sum renormalised over the tiers that answered; vector-only below the floor dropped", () => {
  const scores = new Map<string, TierScores>([
    ["a", { k: 1, v: 0.3 }],
    ["b", { k: 0.5, v: 0.9 }],
    ["c", { v: 0.1 }],
  ]);
  const r = fuse(scores, HASH_FUSION, both);
  assert.deepEqual(r.map((x) => x.id), ["a", "b"]);
  assert.ok(Math.abs(r[0]!.fused - (0.6 * 1 + 0.4 * 0.3)) < 1e-12);
  assert.ok(Math.abs(r[1]!.fused - (0.6 * 0.5 + 0.4 * 0.9)) < 1e-12);
  // Only the keyword tier answered: its score alone, in [0, 1].
  assert.deepEqual(fuse(new Map([["a", { k: 0.5 }]]), HASH_FUSION, { keyword: true, vector: false }), [
    { id: "a", fused: 0.5 },
  ]);
});

test("z-scored sum: tiers on one scale, a missing score counts as the tier's worst, result in (0, 1)", () => {
  const fusion: Fusion = { kind: "zscore", keyword: 0.5, vector: 0.5, floor: 0.2, expansion: 0.3 };
  // Cosines crowd near 0.5 while BM25 spreads over [0, 1]: raw sums would let BM25 decide alone.
  const scores = new Map<string, TierScores>([
    ["kw-top", { k: 1, v: 0.40 }],
    ["vec-top", { k: 0.6, v: 0.7 }],
    ["mid", { k: 0.3, v: 0.45 }],
    ["vec-only", { v: 0.58 }],
    ["vec-only-low", { v: 0.1 }],
    // Enough of both tiers for a distribution (Z_SAMPLE): weak matches, as a real query's tail.
    ...Array.from({ length: Z_SAMPLE }, (_, i) => [`tail-${i}`, { k: 0.05 + 0.01 * i, v: 0.25 }] as const),
  ]);
  const r = fuse(scores, fusion, both);
  assert.deepEqual(order(r).slice(0, 2), ["vec-top", "kw-top"]);
  assert.deepEqual(order(fuse(scores, { ...fusion, kind: "linear" }, both)).slice(0, 2), [
    "kw-top",
    "vec-top",
  ]);
  // Not rescaled to the candidates at hand: the last one keeps a score a factor (date window, prior) moves.
  assert.ok(r.every((x) => x.fused > 0 && x.fused < 1), JSON.stringify(r));
  // One tier only: no z-scores (nothing to put on one scale), the linear fallback.
  const single = fuse(new Map([["a", { v: 0.7 }], ["b", { v: 0.5 }]]), fusion, {
    keyword: false,
    vector: true,
  });
  assert.deepEqual(single, [{ id: "a", fused: 0.7 }, { id: "b", fused: 0.5 }]);
});

test("z-scored sum over a handful of candidates (a small store): the weights blend the scores as they are", () => {
  const fusion: Fusion = { kind: "zscore", keyword: 0.5, vector: 0.5, floor: 0.2, expansion: 0.3 };
  // Two close matches: z-scores would make their small gap a whole standard deviation each way.
  const scores = new Map<string, TierScores>([["twice", { k: 1, v: 0.5 }], ["once", { k: 0.8, v: 0.45 }]]);
  const r = fuse(scores, fusion, both);
  assert.deepEqual(r, fuse(scores, { ...fusion, kind: "linear" }, both));
  assert.ok(r[1]!.fused / r[0]!.fused > 0.5, JSON.stringify(r)); // a date boost of 2 can still turn them round
});
