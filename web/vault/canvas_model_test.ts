import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  addEdge,
  addNode,
  commit,
  cssColor,
  emptyCanvas,
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
