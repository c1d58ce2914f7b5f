import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  addEdge,
  addNode,
  commit,
  cssColor,
  emptyCanvas,
  fitView,
  fromServer,
  type History,
  MIN_SIZE,
  moveNode,
  nearestSide,
  removeNode,
  resizeNode,
  serializeCanvas,
  undo,
} from "./canvas_model.ts";

describe("canvas model", () => {
  it("adds nodes with integer geometry, groups first (behind), unique ids", () => {
    let doc = emptyCanvas();
    const a = addNode(doc, { type: "text", text: "a", x: 10.4, y: -3.6, width: 250.5, height: 10 });
    doc = a.doc;
    const g = addNode(doc, { type: "group", label: "G", x: 0, y: 0, width: 500, height: 400 });
    doc = g.doc;
    assert.deepEqual(doc.nodes.map((n) => n.type), ["group", "text"]);
    assert.deepEqual(doc.nodes[1], {
      id: a.id,
      type: "text",
      text: "a",
      x: 10,
      y: -4,
      width: 251,
      height: MIN_SIZE,
    });
    assert.match(a.id, /^[0-9a-f]{16}$/);
    assert.notEqual(a.id, g.id);
  });

  it("moves, resizes, and removing a node removes its edges; unknown properties stay", () => {
    let doc = fromServer({ nodes: [], extra: 1 } as never);
    const a = addNode(doc, { type: "text", text: "a", x: 0, y: 0, width: 100, height: 100 });
    const b = addNode(a.doc, { type: "link", url: "https://x.test", x: 300, y: 0, width: 100, height: 100 });
    const e = addEdge(b.doc, { fromNode: a.id, fromSide: "right", toNode: b.id, toSide: "left" });
    doc = moveNode(e.doc, a.id, 20.7, 30.2);
    doc = resizeNode(doc, a.id, 5, 500.4);
    assert.deepEqual([doc.nodes[0]!.x, doc.nodes[0]!.y, doc.nodes[0]!.width, doc.nodes[0]!.height], [
      21,
      30,
      MIN_SIZE,
      500,
    ]);
    assert.equal(doc.edges.length, 1);
    doc = removeNode(doc, b.id);
    assert.deepEqual(doc.edges, []);
    assert.equal(doc.extra, 1);
    assert.ok(serializeCanvas(doc).startsWith('{\n\t"nodes": [\n\t\t{'));
  });

  it("finds the nearest side, and undo steps back", () => {
    const n = { id: "n", type: "text" as const, x: 0, y: 0, width: 100, height: 50 };
    assert.equal(nearestSide(n, { x: 50, y: -20 }), "top");
    assert.equal(nearestSide(n, { x: 130, y: 30 }), "right");
    assert.equal(nearestSide(n, { x: 50, y: 70 }), "bottom");
    assert.equal(nearestSide(n, { x: -5, y: 25 }), "left");
    const first = emptyCanvas();
    let h: History = { past: [], present: first };
    const second = addNode(first, { ...n }).doc;
    h = commit(h, second);
    assert.equal(commit(h, second), h, "no step for no change");
    h = undo(h);
    assert.equal(h.present, first);
    assert.equal(undo(h), h);
  });

  it("colors are presets or hex, nothing else reaches a style", () => {
    assert.equal(cssColor("4"), "#30a46c");
    assert.equal(cssColor("#abc"), "#abc");
    assert.equal(cssColor("red;background:url(//evil)"), undefined);
    assert.equal(cssColor("7"), undefined);
  });
});

describe("fitView", () => {
  const node = (x: number, y: number, width = 200, height = 100) => ({
    id: `${x},${y}`,
    type: "text" as const,
    text: "",
    x,
    y,
    width,
    height,
  });
  it("shows every node inside the stage, zoomed out when the content is larger", () => {
    const doc = { nodes: [node(-1000, 0), node(2000, 1500)], edges: [] };
    const v = fitView(doc, { width: 800, height: 600 });
    assert.ok(v.k < 1 && v.k >= 0.1);
    for (const n of doc.nodes) {
      const left = v.x + n.x * v.k, right = v.x + (n.x + n.width) * v.k;
      const top = v.y + n.y * v.k, bottom = v.y + (n.y + n.height) * v.k;
      assert.ok(
        left >= 0 && right <= 800 && top >= 0 && bottom <= 600,
        JSON.stringify({ left, right, top, bottom }),
      );
    }
  });
  it("never zooms in past 1; an empty canvas or a stage without size gets the plain view", () => {
    assert.equal(fitView({ nodes: [node(0, 0)], edges: [] }, { width: 2000, height: 2000 }).k, 1);
    assert.deepEqual(fitView({ nodes: [], edges: [] }, { width: 800, height: 600 }), { x: 40, y: 60, k: 1 });
    assert.deepEqual(fitView({ nodes: [node(0, 0)], edges: [] }, { width: 0, height: 0 }), {
      x: 40,
      y: 60,
      k: 1,
    });
  });
});
