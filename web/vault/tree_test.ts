import assert from "node:assert/strict";
import { test } from "node:test";
import { rankNotes } from "./rank_notes.ts";
import { buildTree } from "./tree.ts";

test("the tree nests entries under their folders, folders first, implied folders included", () => {
  const t = buildTree([
    { path: "b.md", kind: "note", mtime: "" },
    { path: "Z/deep/x.md", kind: "note", mtime: "" },
    { path: "A", kind: "folder", mtime: "" },
    { path: "a.md", kind: "note", mtime: "" },
  ]);
  assert.deepEqual(t.map((n) => n.path), ["A", "Z", "a.md", "b.md"]);
  assert.deepEqual(t[1]!.children.map((n) => [n.path, n.kind]), [["Z/deep", "folder"]]);
  assert.equal(t[1]!.children[0]!.children[0]!.name, "x.md");
});

test("the switcher keeps notes matching every word, shortest first", () => {
  assert.deepEqual(
    rankNotes(["Recipes/Bread.md", "Bread.md", "Projects/Plan.md", "Brea/notes.md"], "brea"),
    ["Bread.md", "Brea/notes.md", "Recipes/Bread.md"],
  );
  assert.deepEqual(rankNotes(["Recipes/Bread.md", "Bread.md"], "rec bre"), ["Recipes/Bread.md"]);
});
