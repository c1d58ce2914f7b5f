import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { InvalidPathError } from "./errors.ts";
import { MAX_PATH_CHARS, normalizeNotePath, resolveInside } from "./safe_path.ts";

const REFUSED: [string, string][] = [
  ["..", "parent"],
  ["....//x.md", "doubled dots and slashes"],
  ["..;/x.md", "dots with a semicolon (servlet trick)"],
  [".%00./x.md", "dots around an encoded NUL"],
  ["\ufe52\ufe52/x.md", "small full stops"],
  ["\u2024\u2024/x.md", "one-dot leaders"],
  ["a/%2E%2E/%2E%2E/b.md", "upper-case encoded dots"],
  ["../x.md", "parent first"],
  ["a/../../b.md", "climbs out"],
  ["a/../b.md", "parent in the middle"],
  ["a/..", "parent last"],
  ["%2e%2e/x.md", "percent-encoded dots"],
  ["..%2fetc%2fpasswd", "percent-encoded slash"],
  ["%252e%252e%252fetc", "double-encoded"],
  ["a%2f..%2f..%2fb", "encoded climb"],
  ["..\\..\\windows\\win.ini", "backslash traversal"],
  ["a\\..\\..\\b.md", "mixed separators"],
  ["/etc/passwd", "absolute"],
  ["\\etc\\passwd", "absolute with backslash"],
  ["C:\\Windows\\system.ini", "drive letter"],
  ["c:/x.md", "drive letter, forward slash"],
  ["//server/share/x.md", "UNC with slashes"],
  ["\\\\server\\share", "UNC with backslashes"],
  ["a\0b.md", "NUL"],
  ["a%00.md", "encoded NUL"],
  ["a\nb.md", "newline"],
  ["a\u001bb.md", "escape"],
  ["a\u0085b.md", "C1 control"],
  ["\uff0e\uff0e/x.md", "fullwidth dots"],
  ["\u2025/x.md", "two-dot leader"],
  ["a\uff0fb\uff0f\uff0e\uff0e", "fullwidth solidus"],
  ["a\u2215..", "division slash then dots"],
  ["note.md.", "trailing dot"],
  ["note.md ", "trailing space"],
  ["folder /x.md", "folder with trailing space"],
  [" lead.md", "leading space"],
  ["...", "only dots"],
  [".trash/x.md", "reserved hidden folder"],
  [".obsidian/app.json", "other tool's hidden folder"],
  ["a/.hidden.md", "hidden file"],
  ["..note.md", "dots then a name"],
  ["CON", "device name"],
  ["nul.md", "device name with extension"],
  ["a:b.md", "colon (alternate data stream)"],
  ["what?.md", "question mark"],
  ["a\u202eb.md", "bidi override"],
  ["a\u200bb.md", "zero-width space"],
  ["", "empty"],
  ["/", "only a slash"],
  ["x".repeat(256) + ".md", "segment over 255 bytes"],
  ["a/".repeat(250) + "b.md", "over 500 characters"],
];

const ACCEPTED: [string, string][] = [
  ["note.md", "note.md"],
  ["Folder/Sub/note.md", "Folder/Sub/note.md"],
  ["Folder\\note.md", "Folder/note.md"],
  ["./a//b/./c.md", "a/b/c.md"],
  ["a/b/", "a/b"],
  ["Cafe\u0301.md", "Café.md"],
  ["50%25 done.md", "50%25 done.md"],
  ["v1.2..3.md", "v1.2..3.md"],
  ["日本語/メモ.md", "日本語/メモ.md"],
  ["emoji 🎉.md", "emoji 🎉.md"],
  ["a/".repeat(240) + "b.md", "a/".repeat(240) + "b.md"],
];

describe("normalizeNotePath", () => {
  for (const [input, why] of REFUSED) {
    it(`refuses ${why}: ${JSON.stringify(input).slice(0, 40)}`, () => {
      assert.throws(() => normalizeNotePath(input), (err: unknown) => {
        assert.ok(err instanceof InvalidPathError, String(err));
        assert.equal(err.code, "invalid_path");
        assert.equal(err.status, 400);
        assert.match(err.message, /^invalid path: /);
        assert.ok(!err.message.includes("/tmp"), err.message);
        return true;
      });
    });
  }
  for (const [input, want] of ACCEPTED) {
    it(`accepts ${JSON.stringify(input).slice(0, 40)}`, () => {
      assert.equal(normalizeNotePath(input), want);
    });
  }
  it("counts characters, not bytes, up to the limit", () => {
    const long = "é/".repeat((MAX_PATH_CHARS - 4) / 2) + "a.md";
    assert.equal([...long].length, MAX_PATH_CHARS);
    assert.equal(normalizeNotePath(long), long);
    assert.throws(() => normalizeNotePath("x" + long), InvalidPathError);
  });
  it("refuses what is not a string and allows the root only when asked", () => {
    assert.throws(() => normalizeNotePath(42), InvalidPathError);
    assert.throws(() => normalizeNotePath(undefined), InvalidPathError);
    assert.equal(normalizeNotePath("", { allowRoot: true }), "");
    assert.equal(normalizeNotePath("./", { allowRoot: true }), "");
  });
});

describe("resolveInside", () => {
  let dir: string;
  let root: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "safe-path-"));
    root = join(dir, "users", "u1");
    await mkdir(join(root, "inner"), { recursive: true });
    await mkdir(join(dir, "outside"), { recursive: true });
    await writeFile(join(dir, "outside", "secret.md"), "secret");
    await writeFile(join(root, "inner", "ok.md"), "ok");
    await symlink("/etc", join(root, "etc"));
    await symlink("/etc/passwd", join(root, "passwd.md"));
    await symlink(join(dir, "outside"), join(root, "linked-folder"));
    await symlink("../u2", join(root, "neighbour"));
    await symlink(join(root, "inner"), join(root, "alias"));
    await symlink(join(dir, "outside", "missing.md"), join(root, "dangling.md"));
    await symlink("loop-b", join(root, "loop-a"));
    await symlink("loop-a", join(root, "loop-b"));
  });
  after(async () => await rm(dir, { recursive: true, force: true }));

  for (
    const [rel, why] of [
      ["etc/passwd", "symlink to /etc"],
      ["passwd.md", "file symlink to /etc/passwd"],
      ["linked-folder/secret.md", "symlinked folder outside"],
      ["linked-folder/new.md", "new file in a symlinked folder outside"],
      ["neighbour/x.md", "relative symlink to another user"],
      ["dangling.md", "dangling symlink"],
      ["loop-a/x.md", "symlink loop"],
    ]
  ) {
    it(`refuses ${why}`, async () => {
      await assert.rejects(resolveInside(root, rel!), (err: unknown) => {
        assert.ok(err instanceof InvalidPathError, String(err));
        assert.ok(!err.message.includes(dir), err.message);
        return true;
      });
    });
  }

  it("allows existing and new paths inside, and symlinks that stay inside", async () => {
    assert.equal(await resolveInside(root, "inner/ok.md"), join(root, "inner", "ok.md"));
    assert.equal(await resolveInside(root, "new/deep/n.md"), join(root, "new", "deep", "n.md"));
    assert.equal(await resolveInside(root, "alias/ok.md"), join(root, "inner", "ok.md"));
    assert.equal(await resolveInside(root, ""), root);
  });
});
