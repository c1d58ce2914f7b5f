import assert from "node:assert/strict";
import * as fs from "node:fs";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import git from "isomorphic-git";
import { readOnlyCloneFs } from "./clone_fs.ts";

test("a clone's loose objects are still read through the checkout's file system; absent ones are not found", async () => {
  const gitdir = mkdtempSync(join(tmpdir(), "clone-fs-"));
  try {
    await git.init({ fs, gitdir, bare: true });
    const oid = await git.writeBlob({ fs, gitdir, blob: new TextEncoder().encode("kind: ConfigMap\n") });
    const cloneFs = readOnlyCloneFs(gitdir);
    const { blob } = await git.readBlob({ fs: cloneFs, gitdir, oid });
    assert.equal(new TextDecoder().decode(blob), "kind: ConfigMap\n");
    const other = oid.startsWith("0") ? "1".repeat(40) : "0".repeat(40);
    await assert.rejects(git.readBlob({ fs: cloneFs, gitdir, oid: other }), { code: "NotFoundError" });
  } finally {
    rmSync(gitdir, { recursive: true, force: true });
  }
});
