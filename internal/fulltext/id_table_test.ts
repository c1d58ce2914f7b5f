import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { IdTable } from "./id_table.ts";

describe("IdTable", () => {
  it("agrees with a Map through inserts, overwrites, deletes, reuse and growth", () => {
    const keys: (string | undefined)[] = [];
    const table = new IdTable((v) => keys[v]);
    const model = new Map<string, number>();
    // A fixed pseudo-random walk: ids of the shape memsvc uses and short ones that collide often.
    let seed = 7;
    const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
    for (let step = 0; step < 20_000; step++) {
      const r = next();
      const key = r % 3 === 0 ? `k${r % 50}` : `m_${(r % 3_000).toString(16).padStart(24, "0")}`;
      if (r % 5 === 0 && model.has(key)) {
        const v = model.get(key)!;
        assert.equal(table.delete(key), true);
        keys[v] = undefined;
        model.delete(key);
      } else if (!model.has(key)) {
        const v = keys.length;
        keys.push(key);
        table.set(key, v);
        model.set(key, v);
      } else {
        // Overwrite: the key moves to a new value (the old one answers for it until then).
        const v = keys.length;
        keys.push(key);
        table.set(key, v);
        keys[model.get(key)!] = undefined;
        model.set(key, v);
      }
      assert.equal(table.size, model.size);
    }
    for (const [key, v] of model) assert.equal(table.get(key), v);
    for (let i = 0; i < 50; i++) assert.equal(table.has(`k${i}`), model.has(`k${i}`));
    assert.equal(table.get("absent"), undefined);
    assert.equal(table.delete("absent"), false);
  });

  it("takes a range of values whose keys are already known, and finds them after growing", () => {
    const keys = Array.from({ length: 1_000 }, (_, i) => `id-${i}`);
    const table = new IdTable((v) => keys[v]);
    table.reserve(keys.length);
    keys.forEach((k, i) => table.set(k, i));
    assert.equal(table.size, 1_000);
    keys.push("late");
    table.set("late", 1_000);
    assert.equal(table.get("id-999"), 999);
    assert.equal(table.get("late"), 1_000);
  });
});
