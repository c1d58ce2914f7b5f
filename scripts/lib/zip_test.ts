import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { zipMember } from "./zip.ts";

test("zipMember reads stored and deflated members, and names what is missing", (t) => {
  // An archive made by Python's zipfile (the format wheels use): one stored, one deflated member.
  const dir = mkdtempSync(join(tmpdir(), "zip-test-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const text = "all work and no play ".repeat(200);
  writeFileSync(
    join(dir, "make.py"),
    `
import zipfile, sys
with zipfile.ZipFile(sys.argv[1], "w") as z:
    z.writestr("a/stored.txt", "plain", compress_type=zipfile.ZIP_STORED)
    z.writestr("b/deflated.txt", sys.argv[2], compress_type=zipfile.ZIP_DEFLATED)
`,
  );
  execFileSync("python3", [join(dir, "make.py"), join(dir, "t.zip"), text]);
  const zip = readFileSync(join(dir, "t.zip"));
  assert.equal(new TextDecoder().decode(zipMember(zip, "a/stored.txt")), "plain");
  assert.equal(new TextDecoder().decode(zipMember(zip, "b/deflated.txt")), text);
  assert.throws(() => zipMember(zip, "c.txt"), /no member c\.txt/);
  assert.throws(() => zipMember(new Uint8Array(100), "x"), /not a zip archive/);
});
