import assert from "node:assert/strict";
import { it } from "node:test";
import {
  closeActivePane,
  closeEverywhere,
  closePane,
  closeTabInPane,
  EMPTY_LAYOUT,
  openInPane,
  openToSide,
  ownerPane,
  type PaneLayout,
  renameInPanes,
  setPaneCloser,
  shownTab,
  split,
} from "./panes.ts";

const paths = (l: PaneLayout) => l.panes.map((p) => p.tabs.map((t) => t.path));

it("opens go to the focused pane, each pane keeping at most four tabs, first in first out", () => {
  let l = EMPTY_LAYOUT;
  for (const n of ["a", "b"]) l = openInPane(l, { path: n });
  l = split(l);
  assert.deepEqual(paths(l), [["a", "b"], ["b"]], "the new pane shows the note shown");
  assert.equal(l.focused, 1);
  for (const n of ["c", "d", "e", "f"]) l = openInPane(l, { path: n });
  assert.deepEqual(paths(l), [["a", "b"], ["c", "d", "e", "f"]], "the fifth evicted b in pane 2 only");
  assert.equal(shownTab(l.panes[1]!)?.path, "f");
  l = openInPane(l, { path: "a" }, 0);
  assert.equal(l.focused, 0);
  assert.equal(shownTab(l.panes[0]!)?.path, "a", "an open tab is shown, not reopened");
  assert.deepEqual(split(l).panes.length, 2, "at most two panes");
});

it("open to the side splits once, then uses the other pane", () => {
  let l = openInPane(EMPTY_LAYOUT, { path: "a" });
  l = openToSide(l, { path: "b" });
  assert.deepEqual(paths(l), [["a"], ["b"]]);
  assert.equal(l.focused, 1);
  l = openToSide(l, { path: "c" });
  assert.deepEqual(paths(l), [["a", "c"], ["b"]]);
  assert.equal(l.focused, 0);
});

it("closing: a pane's last tab closes the pane; the only pane empties; trashed notes close everywhere", () => {
  let l = openToSide(openInPane(EMPTY_LAYOUT, { path: "a" }), { path: "a" });
  assert.equal(ownerPane(l, { path: "a" }), 0, "the first pane's editor saves a note open twice");
  l = closeTabInPane(l, 1, { path: "a" });
  assert.deepEqual(paths(l), [["a"]]);
  l = openToSide(l, { path: "b" });
  l = closePane(l, 0);
  assert.deepEqual(paths(l), [["b"]]);
  assert.equal(l.focused, 0);
  assert.deepEqual(closePane(l), EMPTY_LAYOUT);
  l = openToSide(openInPane(EMPTY_LAYOUT, { path: "x" }), { path: "x" });
  assert.deepEqual(paths(closeEverywhere(l, { path: "x" })), [[]]);
});

it("renames follow in every pane, shared notes (with an owner) stay", () => {
  let l = openInPane(EMPTY_LAYOUT, { path: "dir/a" });
  l = openToSide(l, { path: "dir/a", owner: "u2" });
  l = renameInPanes(l, "dir", "new");
  assert.deepEqual(paths(l), [["new/a"], ["dir/a"]]);
  assert.equal(l.panes[0]!.active?.path, "new/a");
});

it("closeActivePane calls what the notes page registered, and says when nothing is", () => {
  assert.equal(closeActivePane(), false);
  let calls = 0;
  setPaneCloser(() => calls++);
  assert.equal(closeActivePane(), true);
  setPaneCloser(undefined);
  assert.equal(calls, 1);
});
