import assert from "node:assert/strict";
import { test } from "node:test";
import { generateProjectId } from "./project_id.ts";

test("project ids are p_ and 16 lowercase base32 characters, different every time", () => {
  const ids = Array.from({ length: 1000 }, generateProjectId);
  assert.equal(new Set(ids).size, 1000);
  for (const id of ids) assert.match(id, /^p_[a-z2-7]{16}$/);
  // The whole alphabet turns up, not a biased part of it.
  assert.equal(new Set(ids.map((id) => id.slice(2)).join("")).size, 32);
});
