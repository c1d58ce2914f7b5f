import assert from "node:assert/strict";
import { test } from "node:test";
import { closeTab, MAX_TABS, openTab, renameInTabs, type Tab } from "./tabs.ts";

test("a fifth tab evicts the first opened; reopening an open note keeps the order", () => {
  let tabs: Tab[] = [];
  for (const p of ["a.md", "b.md", "c.md", "d.md"]) tabs = openTab(tabs, { path: p });
  assert.equal(tabs.length, MAX_TABS);
  tabs = openTab(tabs, { path: "b.md" });
  assert.deepEqual(tabs.map((t) => t.path), ["a.md", "b.md", "c.md", "d.md"]);
  tabs = openTab(tabs, { path: "e.md" });
  assert.deepEqual(tabs.map((t) => t.path), ["b.md", "c.md", "d.md", "e.md"]);
  tabs = openTab(tabs, { path: "b.md", owner: "u2" });
  assert.deepEqual(tabs.map((t) => t.path), ["c.md", "d.md", "e.md", "b.md"]);
  assert.deepEqual(closeTab(tabs, { path: "b.md", owner: "u2" }).map((t) => t.path), [
    "c.md",
    "d.md",
    "e.md",
  ]);
});

test("tabs follow a renamed note or folder", () => {
  const tabs = renameInTabs([{ path: "x/a.md" }, { path: "xa.md" }, { path: "b.md" }], "x", "y");
  assert.deepEqual(tabs.map((t) => t.path), ["y/a.md", "xa.md", "b.md"]);
});
