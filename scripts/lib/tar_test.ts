import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { tgzMembers } from "./tar.ts";

test("reads the named members of a .tgz, long paths included, and names what is missing", () => {
  const dir = mkdtempSync(join(tmpdir(), "tar-test-"));
  try {
    const deep = `package/${"d".repeat(60)}/${"e".repeat(60)}`;
    mkdirSync(join(dir, deep), { recursive: true });
    writeFileSync(join(dir, "package/a.txt"), "alpha");
    writeFileSync(join(dir, deep, "b.bin"), new Uint8Array(1500).map((_, i) => i % 251));
    execFileSync("tar", ["-czf", join(dir, "p.tgz"), "-C", dir, "--format=ustar", "package"]);
    const tgz = readFileSync(join(dir, "p.tgz"));
    const got = tgzMembers(tgz, ["package/a.txt", `${deep}/b.bin`]);
    assert.equal(new TextDecoder().decode(got.get("package/a.txt")), "alpha");
    assert.deepEqual([...got.get(`${deep}/b.bin`)!], [...new Uint8Array(1500).map((_, i) => i % 251)]);
    assert.throws(() => tgzMembers(tgz, ["package/none"]), /tar: no package\/none/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
