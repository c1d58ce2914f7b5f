import assert from "node:assert/strict";
import { test } from "node:test";
import { LruMap } from "./lru.ts";

test("holds at most capacity keys, dropping the least recently used", () => {
  const lru = new LruMap<string, number>(3);
  for (const k of ["a", "b", "c"]) lru.upsert(k, () => 0);
  lru.upsert("a", () => 99); // touch a: b is now the oldest
  lru.upsert("d", () => 0);
  assert.equal(lru.size, 3);
  assert.deepEqual([...lru.entries()].map(([k]) => k), ["c", "a", "d"]);
  assert.equal(new Map(lru.entries()).get("a"), 0, "an existing value is kept, not re-created");
});

test("stays at capacity under a flood of new keys", () => {
  const lru = new LruMap<number, { n: number }>(10_000);
  for (let i = 0; i < 25_000; i++) lru.upsert(i, () => ({ n: i }));
  assert.equal(lru.size, 10_000);
  const kept = new Map(lru.entries());
  assert.equal(kept.has(14_999), false);
  assert.deepEqual(kept.get(15_000), { n: 15_000 });
});
