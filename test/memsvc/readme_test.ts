/**
 * Black-box: README.md's memsvc section, as a new user would run it. The server is started with the
 * variables the block marked `<!-- memsvc-readme-setup -->` exports; the block marked
 * `<!-- memsvc-readme -->` (health, sign-in, one remember and one search, the OpenAPI document, each with
 * its JSON) runs in bash against dist/memsvc serve, and each answer is checked against the comment the
 * README puts beside it (test/harness/doc_blocks.ts).
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT, type RunningBinary, startBinary } from "../harness/binary.ts";
import { assertBlock, exportedVariables, markedBlock, runBlock } from "../harness/doc_blocks.ts";

const README = join(ROOT, "README.md");

describe("README.md, memsvc section", () => {
  let dir: string;
  let server: RunningBinary;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "memsvc-readme-"));
    const env = await exportedVariables((await markedBlock(README, "memsvc-readme-setup")).commands);
    assert.ok(env.MEMSVC_BOOTSTRAP_ADMIN_EMAIL && env.MEMSVC_COOKIE_SECRET, JSON.stringify(Object.keys(env)));
    server = await startBinary("memsvc", ["serve"], {
      cwd: dir,
      env: { ...env, HOME: dir, MEMSVC_PORT: "0", MEMSVC_LOG_FORMAT: "json" },
      timeoutMs: 60_000,
    });
  });

  after(async () => {
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("signs in, remembers and finds the entry, each answer as the README shows it", async () => {
    const block = await markedBlock(README, "memsvc-readme");
    const shown = block.commands.map((c) => c.text.match(/\/(v1\/\w+|health|openapi\.json)/)?.[1]);
    for (const route of ["health", "v1/remember", "v1/search", "openapi.json"]) {
      assert.ok(shown.includes(route), `the README shows ${route}`);
    }
    const shell = join(dir, "shell");
    await mkdir(shell, { recursive: true });
    const run = await runBlock(block, {
      cwd: shell,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: shell },
      replace: [["http://127.0.0.1:7778", server.url]],
    });
    assertBlock(block, run);
    assert.equal(block.commands.filter((c) => c.expect?.startsWith("{")).length, 4, "four answers are shown");
    assert.equal(JSON.parse(run.printed.at(-1)!).openapi.slice(0, 3), "3.1");
  });
});
