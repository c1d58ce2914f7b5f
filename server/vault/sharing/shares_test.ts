import assert from "node:assert/strict";
import { test } from "node:test";
import { covers, sharePath } from "./shares.ts";

test("a folder share covers its folder and what is below it, never a sibling with the same prefix", () => {
  assert.equal(covers("Team/", "Team/Roadmap.md"), true);
  assert.equal(covers("Team/", "Team/a/b/c.md"), true);
  assert.equal(covers("Team/", "Team"), true);
  assert.equal(covers("Team/", "Teamwork/Secret.md"), false);
  assert.equal(covers("Team/", "team/Roadmap.md"), false);
  assert.equal(covers("Team/Roadmap.md", "Team/Roadmap.md"), true);
  assert.equal(covers("Team/Roadmap.md", "Team/Roadmap.md.bak"), false);
});

test("share paths are normalised like note paths; a trailing slash marks a folder; traversal is refused", () => {
  assert.equal(sharePath("Team/"), "Team/");
  assert.equal(sharePath("Team\\\\"), "Team/");
  assert.equal(sharePath("./Team//Sub/"), "Team/Sub/");
  assert.equal(sharePath("Team/Roadmap.md"), "Team/Roadmap.md");
  assert.throws(() => sharePath("../Team/"), /invalid path/);
  assert.throws(() => sharePath("/"), /invalid path/);
});
