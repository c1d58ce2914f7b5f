import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { forceLayout } from "./force.ts";

describe("forceLayout", () => {
  const ids = ["root", "a", "b", "c"];
  const edges = [{ from: "root", to: "a" }, { from: "root", to: "b" }, { from: "a", to: "c" }];

  it("places every node inside the canvas, apart from each other", () => {
    const pos = forceLayout(ids, edges, "root", { width: 800, height: 520 });
    assert.equal(pos.size, 4);
    const points = [...pos.values()];
    for (const p of points) {
      assert.ok(p.x >= 0 && p.x <= 800 && p.y >= 0 && p.y <= 520, JSON.stringify(p));
    }
    for (const p of points) {
      for (const q of points) {
        if (p !== q) assert.ok(Math.hypot(p.x - q.x, p.y - q.y) > 40, `${p.id} and ${q.id} overlap`);
      }
    }
  });

  it("is deterministic", () => {
    assert.deepEqual(forceLayout(ids, edges, "root"), forceLayout(ids, edges, "root"));
  });

  it("ignores edges to nodes it was not given", () => {
    const pos = forceLayout(["root"], [{ from: "root", to: "gone" }], "root");
    assert.deepEqual([...pos.keys()], ["root"]);
  });
});
