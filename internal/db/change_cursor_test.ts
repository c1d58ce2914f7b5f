import assert from "node:assert/strict";
import { test } from "node:test";
import { ChangeCursor } from "./change_cursor.ts";

test("the mark moves over values read; values skipped below it are read again until they age out", () => {
  const cursor = new ChangeCursor(100, 50);
  cursor.advance([3, 1, 2], 0);
  assert.equal(cursor.seen, 3);
  assert.deepEqual(cursor.pending(0), [], "the first read has no gaps: what came before it is history");
  cursor.advance([7, 5], 10);
  assert.equal(cursor.seen, 7);
  assert.deepEqual(cursor.pending(10).sort(), [4, 6]);
  cursor.advance([6], 20); // a late commit fills a gap
  assert.deepEqual(cursor.pending(20), [4]);
  assert.equal(cursor.hasGaps, true);
  assert.deepEqual(cursor.pending(200), [], "gaps older than gapMs are given up");
  assert.equal(cursor.hasGaps, false);
});

test("gaps far below the mark are not waited for; restore takes up a saved cursor", () => {
  const cursor = new ChangeCursor(1_000, 10);
  cursor.advance([1], 0);
  cursor.advance([100], 0);
  assert.deepEqual(cursor.pending(0).sort((a, b) => a - b), [90, 91, 92, 93, 94, 95, 96, 97, 98, 99]);
  cursor.advance([200], 0);
  assert.ok(cursor.pending(0).every((g) => g >= 190), "old gaps beyond the window are dropped");
  const saved = new ChangeCursor(1_000, 10);
  saved.restore(cursor.seen, cursor.pending(0), 5);
  assert.equal(saved.seen, 200);
  assert.deepEqual(saved.pending(5).sort(), cursor.pending(5).sort());
});

test("reach moves the mark to a value the sequence handed out, keeping the values passed over as gaps", () => {
  const cursor = new ChangeCursor(100, 50);
  cursor.advance([4], 0);
  cursor.reach(7, 10);
  assert.equal(cursor.seen, 7);
  assert.deepEqual(cursor.pending(10).sort(), [5, 6, 7], "a late commit of any of them is still read");
  cursor.advance([6], 20);
  assert.deepEqual(cursor.pending(20).sort(), [5, 7]);
  cursor.reach(3, 30);
  assert.equal(cursor.seen, 7, "never back");
  assert.deepEqual(cursor.pending(200), [], "and the gaps age out like any other");
});
