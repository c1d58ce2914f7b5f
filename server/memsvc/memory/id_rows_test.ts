import assert from "node:assert/strict";
import { test } from "node:test";
import { IdRows, IdSpace } from "./id_rows.ts";

const id = (i: number) => `m_${i.toString(16).padStart(24, "0")}`;

test("partitions of one tier file, move and drop their own ids, compact or not", () => {
  const tier = new IdSpace();
  const a = new IdRows(tier, 0), b = new IdRows(tier, 1);
  for (let i = 0; i < 1_000; i++) a.set(id(i), i);
  b.set("imported:1", 0);
  b.set(id(5_000), 1);
  assert.deepEqual([tier.size, a.size, b.size], [1_002, 1_000, 2]);
  assert.equal(a.get(id(7)), 7);
  assert.equal(b.get(id(7)), undefined, "another partition's id");
  assert.equal(tier.partitionOf("imported:1"), 1);
  assert.equal(b.idAt(0), "imported:1");
  assert.equal(a.idAt(999), id(999));
  // A move: out of a, into b (the index deletes first).
  assert.equal(b.delete(id(7)), false);
  assert.equal(a.delete(id(7)), true);
  assert.equal(a.idAt(7), undefined);
  assert.equal(a.numberAt(7), -1);
  b.set(id(7), 2);
  assert.deepEqual([tier.partitionOf(id(7)), b.get(id(7)), a.has(id(7))], [1, 2, false]);
  // A row renumbered within its partition (compaction) frees the old row.
  a.set(id(8), 1_500);
  assert.equal(a.idAt(8), undefined);
  assert.equal(a.idAt(1_500), id(8));
  assert.equal(a.size, 999);
  // Numbers freed by deletes are reused; every id is still found.
  for (let i = 0; i < 500; i++) a.delete(id(i));
  for (let i = 0; i < 500; i++) b.set(id(10_000 + i), 3 + i);
  assert.equal(tier.size, 1_002 - 1 + 1 - 499 + 500 - 1 + 1);
  assert.deepEqual(new Set(tier.ids()).size, tier.size);
  for (let i = 0; i < 500; i++) assert.equal(b.get(id(10_000 + i)), 3 + i);
  assert.equal(a.get(id(600)), 600);
  assert.throws(() => a.set(id(10_001), 0), /another partition/);
});

test("a snapshot's ids load in one go into an empty partition", () => {
  const rows = IdRows.own();
  const ids = Array.from({ length: 20_000 }, (_, i) => (i % 97 ? id(i * 7919) : `other-${i}`));
  rows.load(ids);
  assert.equal(rows.size, ids.length);
  ids.forEach((k, row) => assert.equal(rows.get(k), row));
  assert.equal(rows.idAt(19_999), ids[19_999]);
});

test("unmarked: ids numbered by a reading of the clock and not marked, not ids numbered since", () => {
  const tier = new IdSpace();
  const rows = new IdRows(tier, 0);
  rows.load([id(1), id(2), "other-3"]);
  rows.set(id(4), 3);
  const clock = tier.clock, seen = new Uint8Array(tier.limit);
  seen[tier.numberOf(id(2))!] = 1;
  // After the reading: a new id, and a deleted one whose number is reused by another new id.
  rows.delete(id(4));
  rows.set(id(5), 4);
  rows.set(id(6), 5);
  assert.deepEqual(tier.unmarked(seen, clock).sort(), [id(1), "other-3"]);
});
