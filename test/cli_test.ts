/** Black-box: every binary in dist/ answers --version, version, --help and rejects unknown flags. */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { TOOLS } from "../scripts/lib/tools.ts";
import pkg from "../package.json" with { type: "json" };
import { runBinary } from "./harness/binary.ts";

const VERSION = `v${pkg.version}`;

/** How `version` is asked offline and what it prints: edgectl's also asks the cluster unless --client. */
const OFFLINE_VERSION: Partial<Record<string, { args: string[]; text: string; json: object }>> = {
  edgectl: {
    args: ["version", "--client"],
    text: `Client Version: ${VERSION}`,
    json: { clientVersion: VERSION },
  },
};

for (const tool of TOOLS) {
  describe(`dist/${tool}`, () => {
    it("prints the same version for --version and version", async () => {
      const offline = OFFLINE_VERSION[tool] ??
        { args: ["version"], text: VERSION, json: { version: VERSION } };
      const flag = await runBinary(tool, ["--version"]);
      const cmd = await runBinary(tool, offline.args);
      assert.equal(flag.code, 0, flag.stderr);
      assert.equal(cmd.code, 0, cmd.stderr);
      assert.equal(flag.stdout.trim(), VERSION);
      assert.equal(cmd.stdout.trim(), offline.text);
      const json = await runBinary(tool, [...offline.args, "-o", "json"]);
      assert.deepEqual(JSON.parse(json.stdout), offline.json);
    });

    it("explains itself in --help, with examples", async () => {
      const r = await runBinary(tool, ["--help"]);
      assert.equal(r.code, 0);
      assert.match(r.stdout, new RegExp(`Usage: ${tool}`));
      assert.match(r.stdout, /Examples:/);
      assert.match(r.stdout, /version/);
    });

    it("exits 2 with one clear line on an unknown flag or command", async () => {
      for (const args of [["--no-such-flag"], ["no-such-command"]]) {
        const r = await runBinary(tool, args);
        assert.equal(r.code, 2, `${args}: ${r.stderr}`);
        assert.match(r.stderr, /^error: /);
        assert.equal(r.stdout, "");
      }
    });
  });
}
