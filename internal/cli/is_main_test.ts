import assert from "node:assert/strict";
import { mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { after, before, describe, it } from "node:test";
import { isMain } from "./is_main.ts";

describe("isMain", () => {
  let dir: string;
  let file: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "is-main-"));
    file = join(dir, "tool.mjs");
    await writeFile(file, "");
    await symlink(file, join(dir, "bin-link"));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it("believes import.meta.main where the runtime has it", () => {
    assert.equal(isMain({ main: true, url: "file:///elsewhere.ts" }, "/nothing"), true);
    assert.equal(isMain({ main: false, url: pathToFileURL(file).href }, file), false);
  });

  it("without it, matches argv[1] through symlinks such as node_modules/.bin", () => {
    const url = pathToFileURL(file).href;
    assert.equal(isMain({ url }, file), true);
    assert.equal(isMain({ url }, join(dir, "bin-link")), true);
    assert.equal(isMain({ url }, join(dir, "missing")), false);
    assert.equal(isMain({ url }, undefined), false);
  });
});
