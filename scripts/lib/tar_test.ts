import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { tarEntries, tgzMembers, writeTar } from "./tar.ts";

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

test("writeTar: GNU tar extracts files, directories, links and long names; the same entries give the same bytes", () => {
  const dir = mkdtempSync(join(tmpdir(), "tar-test-"));
  try {
    const long = `usr/share/${"z".repeat(90)}/${"y".repeat(80)}.txt`;
    const entries = [
      { path: "usr", type: "dir", mode: 0o755 },
      { path: "usr/bin", type: "dir", mode: 0o755 },
      { path: "usr/bin/tool", type: "file", mode: 0o755, data: new TextEncoder().encode("#!/bin/sh\n") },
      { path: "usr/bin/alias", type: "symlink", mode: 0o777, linkname: "tool" },
      { path: "usr/bin/copy", type: "hardlink", mode: 0o755, linkname: "usr/bin/tool" },
      { path: "home", type: "dir", mode: 0o700, uid: 65532, gid: 65532 },
      { path: long, type: "file", mode: 0o644, data: new Uint8Array(700).fill(7) },
    ] as const;
    const tar = writeTar(entries, 1_700_000_000);
    assert.deepEqual(writeTar(entries, 1_700_000_000), tar);
    writeFileSync(join(dir, "a.tar"), tar);
    mkdirSync(join(dir, "x"));
    execFileSync("tar", ["-xf", join(dir, "a.tar"), "-C", join(dir, "x"), "--same-owner"]);
    assert.equal(readFileSync(join(dir, "x/usr/bin/copy"), "utf8"), "#!/bin/sh\n");
    assert.equal(readlinkSync(join(dir, "x/usr/bin/alias")), "tool");
    assert.equal(lstatSync(join(dir, "x/usr/bin/tool")).mode & 0o777, 0o755);
    assert.equal(lstatSync(join(dir, "x/home")).uid, 65532);
    assert.equal(lstatSync(join(dir, "x/usr/bin/tool")).mtimeMs, 1_700_000_000_000);
    assert.equal(readFileSync(join(dir, "x", long)).length, 700);
    const listed = execFileSync("tar", ["-tf", join(dir, "a.tar")], { encoding: "utf8" }).trim().split("\n");
    assert.deepEqual(listed, [
      "usr/",
      "usr/bin/",
      "usr/bin/tool",
      "usr/bin/alias",
      "usr/bin/copy",
      "home/",
      long,
    ]);
    // ...and reads back what it wrote.
    const back = tarEntries(tar);
    assert.deepEqual(
      back.map((e) => [e.path, e.type, e.linkname ?? ""]),
      entries.map((e) => [e.path, e.type, "linkname" in e ? e.linkname : ""]),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
