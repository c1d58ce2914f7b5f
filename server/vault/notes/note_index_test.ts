import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { NoteIndex } from "./note_index.ts";

describe("NoteIndex", () => {
  it("answers backlinks, outgoing links, the graph and tags, and follows changes", () => {
    const idx = new NoteIndex();
    idx.set("a.md", "#one links [[b]] and [[b#h|B]] and [c](sub/c.md) and [[nowhere]] and [[#self]]");
    idx.set("sub/c.md", "---\ntags: [two]\n---\n[[a]] ![[pic.png]] #One");
    idx.set("b.md", "plain");
    idx.set("pic.png");
    assert.deepEqual(idx.backlinks("b.md").map((b) => [b.source, b.links.length]), [["a.md", 2]]);
    assert.deepEqual(idx.backlinks("pic.png").map((b) => b.source), ["sub/c.md"]);
    assert.deepEqual(idx.backlinks("a.md").map((b) => b.source), ["sub/c.md"]);
    assert.deepEqual(idx.outgoing("a.md").map((o) => o.resolved), [
      "b.md",
      "b.md",
      "sub/c.md",
      undefined,
      "a.md",
    ]);
    assert.deepEqual(idx.graph().edges, [
      { source: "a.md", target: "b.md" },
      { source: "a.md", target: "sub/c.md" },
      { source: "sub/c.md", target: "a.md" },
      { source: "sub/c.md", target: "pic.png" },
    ]);
    assert.deepEqual([...idx.tags()], [["one", ["a.md", "sub/c.md"]], ["two", ["sub/c.md"]]]);
    assert.deepEqual([...idx.unresolved()], [["nowhere", ["a.md"]]]);
    idx.set("n.md", "#project/alpha #projects");
    assert.deepEqual(idx.tagged("#Project"), ["n.md"]);
    assert.deepEqual(idx.tagged("project/alpha"), ["n.md"]);
    assert.deepEqual(idx.tagged("proj"), []);
    idx.delete("n.md");

    // A second b.md deeper down does not steal the link; deleting the first one hands it over.
    idx.set("z/b.md", "");
    assert.deepEqual(idx.backlinks("z/b.md"), []);
    idx.delete("b.md");
    assert.deepEqual(idx.backlinks("z/b.md").map((b) => b.source), ["a.md"]);
    // Editing a note replaces its links.
    idx.set("a.md", "no links now");
    assert.deepEqual(idx.backlinks("z/b.md"), []);
  });
});
