/**
 * The GitHub Actions workflows pass actionlint (built from its Go module like the test servers), which
 * checks their syntax, expressions, action inputs, reusable-workflow calls and, with shellcheck present,
 * their shell scripts.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { promisify } from "node:util";
import { cachedBinary } from "../../scripts/testenv/go_build.ts";
import { ACTIONLINT } from "../../scripts/testenv/servers.ts";
import { ROOT } from "../harness/binary.ts";
import { skipBecause } from "../harness/skip.ts";

const run = promisify(execFile);
const actionlint = cachedBinary(ACTIONLINT);

describe("the GitHub Actions workflows", {
  skip: skipBecause(!actionlint && "actionlint is not built: `deno task testenv:build actionlint`"),
}, () => {
  it("pass actionlint", async () => {
    const dir = join(ROOT, ".github", "workflows");
    const files = readdirSync(dir).filter((f) => /\.ya?ml$/.test(f)).map((f) => join(dir, f));
    assert.ok(files.some((f) => f.endsWith("release.yml")));
    const result = await run(actionlint!, ["-no-color", ...files], { cwd: ROOT }).then(
      () => "",
      (err) => `${err.stdout}${err.stderr}`,
    );
    assert.equal(result, "");
  });

  it("actionlint finds a broken workflow (the check can fail)", async () => {
    const broken =
      "on: push\njobs:\n  x:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ github.nope }}\n";
    const child = execFile(actionlint!, ["-no-color", "-stdin-filename", "broken.yml", "-"]);
    let out = "";
    child.stdout!.on("data", (d) => (out += d));
    child.stdin!.end(broken);
    const code = await new Promise((r) => child.on("close", r));
    assert.equal(code, 1);
    assert.match(out, /property "nope" is not defined/);
  });
});
