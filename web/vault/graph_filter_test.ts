import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { filterChoices, filterGraph, type Graph, localGraph, resolveNames } from "./graph_filter.ts";

describe("graph filter", () => {
  const graph: Graph = {
    nodes: [
      { path: "A.md", title: "A", tags: ["idea"], exists: true },
      { path: "Work/B.md", title: "B", tags: ["#Idea", "work"], exists: true },
      { path: "Work/Deep/C.md", title: "C", tags: [], exists: true },
      { path: "Missing.md", title: "Missing.md", tags: [], exists: false },
    ],
    edges: [
      { source: "A.md", target: "Work/B.md", kind: "wiki" },
      { source: "Work/B.md", target: "Work/Deep/C.md", kind: "wiki" },
      { source: "Work/B.md", target: "Missing.md", kind: "wiki" },
    ],
  };
  const paths = (g: Graph) => g.nodes.map((n) => n.path);

  it("keeps everything without a filter", () => {
    assert.deepEqual(paths(filterGraph(graph, { tag: "", folder: "" })), paths(graph));
  });
  it("by folder: notes below it, their links and unresolved targets", () => {
    const g = filterGraph(graph, { tag: "", folder: "Work" });
    assert.deepEqual(paths(g), ["Work/B.md", "Work/Deep/C.md", "Missing.md"]);
    assert.equal(g.edges.length, 2);
  });
  it("by tag, with or without '#', any case", () => {
    const g = filterGraph(graph, { tag: "idea", folder: "" });
    assert.deepEqual(paths(g), ["A.md", "Work/B.md", "Missing.md"]);
    assert.deepEqual(g.edges.map((e) => e.target), ["Work/B.md", "Missing.md"]);
  });
  it("leaves templates out, with the placeholder targets only they link to", () => {
    const withTemplate: Graph = {
      nodes: [
        ...graph.nodes,
        { path: "Templates/Meeting.md", title: "{{title}}", tags: [], exists: true },
        { path: "{{title}}", title: "{{title}}", tags: [], exists: false },
      ],
      edges: [...graph.edges, { source: "Templates/Meeting.md", target: "{{title}}", kind: "wiki" }, {
        source: "Templates/Meeting.md",
        target: "A.md",
        kind: "wiki",
      }],
    };
    const g = filterGraph(withTemplate, { tag: "", folder: "", exclude: new Set(["Templates/Meeting.md"]) });
    assert.deepEqual(paths(g), paths(graph));
    assert.equal(g.edges.length, 3);
  });
  it("offers the tags and folders there are", () => {
    assert.deepEqual(filterChoices(graph), { tags: ["idea", "work"], folders: ["Work", "Work/Deep"] });
  });
});

describe("graph names and the local graph", () => {
  const graph: Graph = {
    nodes: [
      { path: "Alpha", title: "Alpha", tags: [], exists: false },
      { path: "Ghost", title: "Ghost", tags: [], exists: false },
      { path: "Home.md", title: "Home", tags: [], exists: true },
      { path: "Projects/Alpha.md", title: "Alpha", tags: [], exists: true },
      { path: "Projects/Beta.md", title: "Beta", tags: [], exists: true },
      { path: "far.md", title: "Far", tags: [], exists: true },
    ],
    edges: [
      { source: "Home.md", target: "Alpha", kind: "wiki" },
      { source: "Home.md", target: "Projects/Alpha.md", kind: "wiki" },
      { source: "Home.md", target: "Ghost", kind: "wiki" },
      { source: "Projects/Beta.md", target: "Home.md", kind: "wiki" },
      { source: "far.md", target: "Projects/Beta.md", kind: "wiki" },
    ],
  };
  it("a link to a note's name points at that note, once", () => {
    const g = resolveNames(graph);
    assert.deepEqual(g.nodes.map((n) => n.path), [
      "Ghost",
      "Home.md",
      "Projects/Alpha.md",
      "Projects/Beta.md",
      "far.md",
    ]);
    assert.deepEqual(g.edges.map((e) => `${e.source}>${e.target}`), [
      "Home.md>Projects/Alpha.md",
      "Home.md>Ghost",
      "Projects/Beta.md>Home.md",
      "far.md>Projects/Beta.md",
    ]);
  });
  it("the local graph follows links both ways, depth steps out", () => {
    const g = resolveNames(graph);
    const at = (d: number) => localGraph(g, "Projects/Alpha.md", d).nodes.map((n) => n.path);
    assert.deepEqual(at(1), ["Home.md", "Projects/Alpha.md"]);
    assert.deepEqual(at(2), ["Ghost", "Home.md", "Projects/Alpha.md", "Projects/Beta.md"]);
    assert.deepEqual(at(3), ["Ghost", "Home.md", "Projects/Alpha.md", "Projects/Beta.md", "far.md"]);
  });
});
