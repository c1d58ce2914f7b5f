import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { formatCanvas, parseCanvas } from "./canvas.ts";
import { InvalidCanvasError } from "./errors.ts";

const node = (id: string, extra: Record<string, unknown> = { type: "text", text: "t" }) => ({
  id,
  x: 0,
  y: -10,
  width: 100,
  height: 60,
  ...extra,
});

describe("parseCanvas", () => {
  it("accepts every node type, edges, colors and extension fields, keeping order", () => {
    const doc = {
      nodes: [
        node("g", {
          type: "group",
          label: "G",
          background: "bg.png",
          backgroundStyle: "cover",
          color: "#ff0",
        }),
        node("t", { type: "text", text: "**hi**", color: "6" }),
        node("f", { type: "file", file: "a/b.md", subpath: "#Heading" }),
        node("l", { type: "link", url: "https://example.com" }),
      ],
      edges: [{
        id: "e1",
        fromNode: "t",
        fromSide: "right",
        fromEnd: "none",
        toNode: "f",
        toSide: "left",
        toEnd: "arrow",
        color: "#a0b1c2",
        label: "x",
      }],
      extension: { kept: true },
    };
    const parsed = parseCanvas(JSON.stringify(doc));
    assert.deepEqual(parsed, doc);
    assert.deepEqual(parseCanvas("{}"), {});
    assert.match(formatCanvas(parsed), /^\{\n\t"nodes"/);
  });

  const bad: [string, unknown, string][] = [
    ["not JSON", "{", "not JSON"],
    ["duplicate node ids", { nodes: [node("a"), node("a")] }, "nodes.1.id"],
    ["an edge id equal to a node id", {
      nodes: [node("a")],
      edges: [{ id: "a", fromNode: "a", toNode: "a" }],
    }, "edges.0.id"],
    [
      "an edge to a missing node",
      { nodes: [node("a")], edges: [{ id: "e", fromNode: "a", toNode: "b" }] },
      "edges.0.toNode",
    ],
    ["an unknown node type", { nodes: [node("a", { type: "video" })] }, "nodes.0.type"],
    ["a text node without text", { nodes: [node("a", { type: "text" })] }, "nodes.0.text"],
    ["fractional geometry", { nodes: [{ ...node("a"), x: 1.5 }] }, "nodes.0.x"],
    ["a bad color", { nodes: [node("a", { type: "text", text: "", color: "7" })] }, "nodes.0.color"],
    [
      "a subpath without #",
      { nodes: [node("a", { type: "file", file: "x.md", subpath: "H" })] },
      "nodes.0.subpath",
    ],
    [
      "a bad side",
      { nodes: [node("a")], edges: [{ id: "e", fromNode: "a", toNode: "a", toSide: "middle" }] },
      "edges.0.toSide",
    ],
    ["nodes not a list", { nodes: {} }, "nodes"],
  ];
  for (const [why, doc, where] of bad) {
    it(`refuses ${why}`, () => {
      assert.throws(
        () => parseCanvas(typeof doc === "string" ? doc : JSON.stringify(doc)),
        (err: unknown) => {
          assert.ok(err instanceof InvalidCanvasError);
          assert.equal(err.status, 400);
          assert.ok(err.message.includes(where), `${err.message} should name ${where}`);
          return true;
        },
      );
    });
  }
});
