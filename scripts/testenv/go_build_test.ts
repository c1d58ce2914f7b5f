import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { type Component, componentDir, ensureBinary, linkedModules, lockComponent } from "./go_build.ts";

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

test("a cached build with an overlay lists its modules after the checkout that built it is gone", async () => {
  const root = mkdtempSync(join(tmpdir(), "go-build-overlay-"));
  const previous = process.env.K8S_TEST_CACHE;
  process.env.K8S_TEST_CACHE = join(root, "cache");
  const write = (file: string, text: string) => {
    mkdirSync(join(file, ".."), { recursive: true });
    writeFileSync(file, text);
  };
  try {
    // A dependency (vendored, so the overlay can replace one of its files) and a recipe that overlays it.
    const dep = join(root, "dep");
    write(join(dep, "go.mod"), "module example.com/dep\n\ngo 1.22\n");
    write(join(dep, "dep.go"), 'package dep\n\nfunc Name() string { return "original" }\n');
    const first = join(root, "checkout-1");
    write(
      join(first, "go.mod"),
      `module example.com/probe\n\ngo 1.22\n\nrequire example.com/dep v0.0.0\n\nreplace example.com/dep => ${dep}\n`,
    );
    write(join(first, "go.sum"), "");
    write(
      join(first, "main.go"),
      'package main\n\nimport (\n\t"fmt"\n\n\t"example.com/dep"\n)\n\nfunc main() { fmt.Println(dep.Name()) }\n',
    );
    write(join(first, "_overlay", "dep.go"), 'package dep\n\nfunc Name() string { return "overlaid" }\n');
    const c: Component = {
      name: "overlay-probe",
      version: "v1",
      recipeDir: first,
      pkg: ".",
      overlay: { "example.com/dep/dep.go": "_overlay/dep.go" },
    };
    const built = await ensureBinary(c, () => {});
    assert.equal(execFileSync(built.path, { encoding: "utf8" }).trim(), "overlaid");
    // The checkout that built the cache is deleted; another reads the cached build's modules.
    const second = join(root, "checkout-2");
    cpSync(first, second, { recursive: true });
    rmSync(first, { recursive: true });
    assert.deepEqual(linkedModules({ ...c, recipeDir: second }).map((m) => `${m.path} ${m.version}`), [
      "example.com/dep v0.0.0",
    ]);
  } finally {
    if (previous === undefined) delete process.env.K8S_TEST_CACHE;
    else process.env.K8S_TEST_CACHE = previous;
    rmSync(root, { recursive: true, force: true });
  }
});
