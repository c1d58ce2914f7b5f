import assert from "node:assert/strict";
import { test } from "node:test";
import { tabwrite } from "./tabwriter.ts";

const pad2 = { minWidth: 0, padding: 2 };

test("a column is aligned over consecutive lines that have a cell in it", () => {
  assert.equal(tabwrite("a:\t1\nlonger:\t2\n", pad2), "a:       1\nlonger:  2\n");
});

test("a line without the cell ends the block; the next block is aligned on its own", () => {
  assert.equal(tabwrite("a:\t1\nSection:\nbbbbbb:\t2\n", pad2), "a:  1\nSection:\nbbbbbb:  2\n");
});

test("deeper columns align within the block of the column before", () => {
  assert.equal(
    tabwrite("x\ty\tz\nxxxx\tyyyyy\tz\nq\tr\n", pad2),
    "x     y      z\nxxxx  yyyyy  z\nq     r\n",
  );
});

test("empty cells are padded; the text after the last tab is not", () => {
  assert.equal(tabwrite("Labels:\ta=b\n\tc=d\n", pad2), "Labels:  a=b\n         c=d\n");
});
