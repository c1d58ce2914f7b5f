import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { withEnv } from "../../internal/cli/testing.ts";
import { provisionDebianPackages, provisionTestServers } from "./provision.ts";

test("missing packages without root stop with one message naming them and the install command", async () => {
  const lines: string[] = [];
  await assert.rejects(
    provisionDebianPackages((l) => lines.push(l), [
      { name: "chromium", file: "/nonexistent/chromium", for: "the browser tests" },
      { name: "postgresql-15", file: "/nonexistent/initdb", for: "the PostgreSQL tests" },
    ], null),
    {
      name: "Error",
      message:
        "missing Debian packages chromium, postgresql-15 (the browser tests, the PostgreSQL tests), and " +
        "installing them needs root: run `sudo apt-get update && sudo apt-get install -y " +
        "--no-install-recommends chromium postgresql-15`, then the tests again",
    },
  );
  assert.deepEqual(lines, []);
});

test("installed packages are reported, not reinstalled", async () => {
  const lines: string[] = [];
  await provisionDebianPackages((l) => lines.push(l), [{ name: "sh", file: "/bin/sh", for: "x" }], () => {
    throw new Error("must not run apt-get");
  });
  assert.deepEqual(lines, ["provision: Debian packages sh: installed"]);
});

test("a server to build without Go stops naming Go and what needs it", async () => {
  const cache = mkdtempSync(join(tmpdir(), "provision-test-"));
  try {
    await withEnv({ PATH: "/nonexistent", K8S_TEST_CACHE: cache }, async () => {
      await assert.rejects(
        provisionTestServers(() => {}, [{ name: "kwok", version: "v0.8.0", recipeDir: cache, pkg: "x" }]),
        /kwok must be built from their Go modules, which needs Go >= 1\.24 on PATH \(go not found\): install Go 1\.24 or later/,
      );
    });
  } finally {
    rmSync(cache, { recursive: true, force: true });
  }
});
