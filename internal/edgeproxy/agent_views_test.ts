import assert from "node:assert/strict";
import { test } from "node:test";
import { formatBytes, hitRatio } from "./agent_views.ts";

test("sizes in binary units with at most one decimal", () => {
  assert.equal(formatBytes(0n), "0B");
  assert.equal(formatBytes(1023n), "1023B");
  assert.equal(formatBytes(1024n), "1KiB");
  assert.equal(formatBytes(1536n), "1.5KiB");
  assert.equal(formatBytes(5n * 1024n * 1024n * 1024n), "5GiB");
});

test("hit ratio to one decimal, <none> before any lookup", () => {
  assert.equal(hitRatio(0n, 0n), "<none>");
  assert.equal(hitRatio(120n, 30n), "80.0%");
  assert.equal(hitRatio(1n, 2n), "33.3%");
});
