import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { CompactIds } from "./compact_ids.ts";
import { hashString, IdTable } from "./id_table.ts";

describe("CompactIds", () => {
  it("keeps ids of the shape as bytes and any other string as it is, giving back the same text", () => {
    const ids = new CompactIds("m_", 12);
    const shaped = "m_0123456789abcdef01234567";
    const others = [
      "m_0123456789ABCDEF01234567", // uppercase would not round-trip through bytes
      "m_0123456789abcdef0123456", // one digit short
      "m_0123456789abcdef0123456g",
      "x_0123456789abcdef01234567",
      "imported-7",
      "",
    ];
    ids.set(0, shaped);
    others.forEach((id, i) => ids.set(i + 1, id));
    assert.equal(ids.keyOf(0), shaped);
    others.forEach((id, i) => assert.equal(ids.keyOf(i + 1), id));
    assert.equal(ids.others, others.length);
    // A number set again to another shape drops what it held.
    ids.set(1, "m_ffffffffffffffffffffffff");
    assert.equal(ids.others, others.length - 1);
    ids.delete(2);
    assert.equal(ids.keyOf(2), undefined);
    assert.equal(ids.has(2), false);
    assert.equal(ids.keyOf(99), undefined);
  });

  it("hashes a key the same from its string and from its stored bytes", () => {
    const ids = new CompactIds("m_", 12);
    const keys = ["m_00000000000000000000002a", "note-1", "m_00000000000000000000002A"];
    keys.forEach((k, n) => ids.set(n, k));
    keys.forEach((k, n) => {
      assert.equal(ids.hash(k), ids.hashOf(n));
      assert.ok(ids.matches(n, k));
      keys.forEach((_, m) => m !== n && assert.ok(!ids.matches(m, k)));
    });
    assert.equal(ids.hashOf(1), hashString("note-1"));
  });

  it("agrees with a Map as an IdTable's keys through inserts, deletes, reuse, growth and collisions", () => {
    const ids = new CompactIds("m_", 12);
    const table = new IdTable(ids);
    const model = new Map<string, number>();
    const free: number[] = [];
    let next = 0;
    let seed = 11;
    const rand = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
    for (let step = 0; step < 30_000; step++) {
      const r = rand();
      // Few distinct keys of both shapes, so that deletes, re-inserts and probe chains are frequent.
      const key = r % 4 === 0 ? `imp-${r % 40}` : `m_${(r % 2_000).toString(16).padStart(24, "0")}`;
      const had = model.get(key);
      if (had !== undefined && r % 3 === 0) {
        assert.equal(table.delete(key), true);
        ids.delete(had);
        free.push(had);
        model.delete(key);
      } else if (had === undefined) {
        const n = free.pop() ?? next++;
        ids.set(n, key);
        table.set(key, n);
        model.set(key, n);
      }
      assert.equal(table.size, model.size);
    }
    for (const [key, n] of model) {
      assert.equal(table.get(key), n);
      assert.equal(ids.keyOf(n), key);
    }
    assert.equal(table.get("m_ffffffffffffffffffffffff"), undefined);
    assert.equal(table.get("imp-99"), undefined);
  });

  it("adopts a range of numbers and hashes it at the first lookup", () => {
    const ids = new CompactIds("m_", 12);
    const keys = Array.from(
      { length: 5_000 },
      (_, i) => i % 10 ? `m_${i.toString(16).padStart(24, "0")}` : `o${i}`,
    );
    keys.forEach((k, n) => ids.set(n, k));
    const table = new IdTable(ids);
    table.adopt(0, keys.length);
    assert.equal(table.size, keys.length);
    keys.forEach((k, n) => assert.equal(table.get(k), n));
  });
});
