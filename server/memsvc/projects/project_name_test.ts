import assert from "node:assert/strict";
import { test } from "node:test";
import { ValidationError } from "../../../internal/http/mod.ts";
import { parseProjectName, projectNameKey } from "./project_name.ts";

test("names are NFKC-normalised and trimmed before validation; the key is lower-cased", () => {
  assert.deepEqual(parseProjectName("ｍｅｍｏｒｙ"), { name: "memory", nameKey: "memory" });
  assert.deepEqual(parseProjectName("  Ｍｙ Project\u3000"), { name: "My Project", nameKey: "my project" });
  assert.deepEqual(parseProjectName("ﬁle²"), { name: "file2", nameKey: "file2" });
  assert.equal(projectNameKey(" Ｍｙ PROJECT "), "my project");
  assert.equal(projectNameKey("ｍｅｍｏｒｙ"), parseProjectName("Memory").nameKey);
});

test("letters of any script, digits, space, '-', '_' and '.' are accepted", () => {
  for (
    const name of ["memsvc v1.2_beta-3", "Café", "日本語プロジェクト", "हिन्दी", "9lives", "x".repeat(64)]
  ) {
    assert.equal(parseProjectName(name).name, name);
  }
  // 64 characters after normalisation, from 64 fullwidth ones.
  assert.equal(parseProjectName("ａ".repeat(64)).name, "a".repeat(64));
});

test("bad names are a ValidationError on path name that says which rule", () => {
  const cases: [string, RegExp][] = [
    ["", /must not be empty/],
    [" \u3000 ", /must not be empty/],
    ["x".repeat(65), /at most 64 characters after NFKC normalisation, not 65/],
    ["-lead", /must start with a letter or digit/],
    [".hidden", /must start with a letter or digit/],
    ["a/b", /"\/" is not allowed/],
    ["tab\there", /"\\t" is not allowed/],
    ["zero\u200dwidth", /is not allowed/],
    ["emoji 🚀", /is not allowed/],
  ];
  for (const [name, message] of cases) {
    assert.throws(() => parseProjectName(name), (err: unknown) => {
      assert.ok(err instanceof ValidationError, JSON.stringify(name));
      assert.deepEqual(err.issues.map((i) => [i.path, i.code]), [[["name"], "invalid_project_name"]]);
      assert.match(err.issues[0]!.message, message);
      return true;
    });
  }
});
