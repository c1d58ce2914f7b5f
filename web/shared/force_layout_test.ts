import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { bounds, forceLayout, startLayout } from "./force_layout.ts";

describe("graph layout", () => {
  it("places linked nodes nearer than unlinked ones, and is deterministic", () => {
    // Two triangles, not linked to each other.
    const links = [[0, 1], [1, 2], [2, 0], [3, 4], [4, 5], [5, 3]] as const;
    const pos = forceLayout(6, links);
    const d = (a: number, b: number) =>
      Math.hypot(pos[2 * a]! - pos[2 * b]!, pos[2 * a + 1]! - pos[2 * b + 1]!);
    for (const [a, b] of links) assert.ok(d(a, b) > 5, "nodes do not sit on each other");
    const within = (d(0, 1) + d(1, 2) + d(3, 4)) / 3;
    const across = (d(0, 3) + d(1, 4) + d(2, 5)) / 3;
    assert.ok(within < across, `linked ${within.toFixed(1)} < unlinked ${across.toFixed(1)}`);
    assert.deepEqual(forceLayout(6, links), pos);
  });

  it("lays out 1,000 notes", () => {
    const n = 1000;
    const links: [number, number][] = [];
    for (let i = 1; i < n; i++) links.push([i, Math.floor(i / 3)], [i, (i * 7) % n]);
    const t0 = performance.now();
    const pos = forceLayout(n, links);
    const ms = performance.now() - t0;
    console.log(`graph layout: ${n} nodes, ${links.length} links in ${ms.toFixed(0)} ms`);
    assert.ok(pos.every(Number.isFinite));
    const [x0, y0, x1, y1] = bounds(pos);
    assert.ok(x1 - x0 > 100 && y1 - y0 > 100, "spread out");
  });
  it("holds a pinned node at the origin while the others move around it", () => {
    const layout = startLayout(5, [[0, 1], [0, 2], [0, 3], [3, 4]], { pinned: 3 });
    while (layout.step()) assert.deepEqual([layout.pos[6], layout.pos[7]], [0, 0]);
    assert.ok(Math.hypot(layout.pos[0]!, layout.pos[1]!) > 10, "an unpinned node moved away");
  });
});
