import assert from "node:assert/strict";
import { describe, it } from "node:test";
import * as Y from "yjs";
import { mergeInto } from "./merge_text.ts";

/** A document that held `base`, then the editors' change to `ours`; then the writer's `theirs` merged in. */
function merged(base: string, ours: string, theirs: string): string {
  const doc = new Y.Doc();
  const text = doc.getText("content");
  text.insert(0, base);
  text.delete(0, base.length);
  text.insert(0, ours);
  mergeInto(text, base, theirs);
  return text.toString();
}

describe("mergeInto", () => {
  it("without unsaved edits the document becomes the writer's text", () => {
    assert.equal(merged("plan", "plan", "plan\nagent line"), "plan\nagent line");
    assert.equal(merged("one two three", "one two three", "one 2 three!"), "one 2 three!");
    assert.equal(merged("abc", "abc", ""), "");
  });

  it("keeps the editors' unsaved edits beside the writer's", () => {
    assert.equal(
      merged("plan", "bob: plan from alice", "plan\nagent line"),
      "bob: plan from alice\nagent line",
    );
    assert.equal(merged("a b c", "A b c", "a b C"), "A b C");
    assert.equal(
      merged("line 1\nline 2\n", "line 1\nline 1.5\nline 2\n", "line 0\nline 1\nline 2\n"),
      "line 0\nline 1\nline 1.5\nline 2\n",
    );
  });

  it("a writer's deletion spares text the editors inserted at its edges", () => {
    assert.equal(merged("keep DROP keep", "keep [x]DROP[y] keep", "keep  keep"), "keep [x][y] keep");
  });

  it("text both removed is removed once; the writer's insertion lands where its base text went", () => {
    assert.equal(merged("abcdef", "abef", "abXef"), "abXef");
    // The editors removed " world"; the writer's "brave " stays, at the place its neighbours went.
    assert.equal(merged("hello world", "hello", "hello brave world"), "hellobrave ");
  });
});
