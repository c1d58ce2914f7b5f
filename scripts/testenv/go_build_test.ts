import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { type Component, componentDir, lockComponent } from "./go_build.ts";

test("lockComponent: a second builder waits for the first; a dead holder's lock is taken over", async () => {
  const root = mkdtempSync(join(tmpdir(), "go-build-lock-"));
  const previous = process.env.K8S_TEST_CACHE;
  process.env.K8S_TEST_CACHE = root;
  try {
    const c: Component = { name: "thing", version: "v1", recipeDir: root, pkg: "." };
    const lines: string[] = [];
    const first = await lockComponent(c, (l) => lines.push(l));
    let second: (() => void) | undefined;
    const waiting = lockComponent(c, (l) => lines.push(l)).then((release) => (second = release));
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(second, undefined, "the second lock must wait");
    assert.match(lines.join("\n"), /waiting for process \d+, which is building thing v1/);
    first();
    await waiting;
    second!();
    assert.ok(!existsSync(`${componentDir(c)}.lock`));
    // A lock left by a process that no longer exists does not block.
    writeFileSync(`${componentDir(c)}.lock`, "999999999");
    (await lockComponent(c, () => {}))();
  } finally {
    if (previous === undefined) delete process.env.K8S_TEST_CACHE;
    else process.env.K8S_TEST_CACHE = previous;
    rmSync(root, { recursive: true, force: true });
  }
});
