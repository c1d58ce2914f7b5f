/**
 * Black-box: docs/vault.md's "First run" (the block marked `<!-- vault-first-run -->`) as a new user
 * would type it, against dist/vault serve started with the variables the block exports: the first
 * sign-up becomes the admin (there is no bootstrap variable), a cookie write without X-Requested-With is
 * refused, the key minted with it works, and a second user needs the admin's invite. Each answer is
 * checked against the comment the doc shows (test/harness/doc_blocks.ts).
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT, type RunningBinary, startBinary } from "../harness/binary.ts";
import { assertBlock, exportedVariables, markedBlock, runBlock } from "../harness/doc_blocks.ts";

const DOC = join(ROOT, "docs", "vault.md");

describe("docs/vault.md, First run", () => {
  let dir: string;
  let server: RunningBinary;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "vault-first-run-"));
    const env = await exportedVariables((await markedBlock(DOC, "vault-first-run")).commands);
    assert.equal(env.DATABASE_URL, "./vault-db");
    server = await startBinary("vault", ["serve"], {
      cwd: dir,
      env: { ...env, HOME: dir, VAULT_PORT: "0", VAULT_LOG_FORMAT: "json" },
      timeoutMs: 60_000,
    });
  });

  after(async () => {
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("runs the doc's commands, each answering as the doc shows", async () => {
    const block = await markedBlock(DOC, "vault-first-run");
    // The test started the server; the rest runs as written.
    const commands = block.commands.filter((c) => !/\bvault serve\b/.test(c.text));
    assert.equal(block.commands.length - commands.length, 1);
    const run = await runBlock(block, {
      cwd: dir,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir },
      replace: [["http://127.0.0.1:7779", server.url]],
      commands,
    });
    assertBlock(block, run, { commands });
    assert.deepEqual(
      commands.map((c) => c.expect?.slice(0, 3)).filter((e) => e === "403"),
      ["403", "403"],
      "both refusals are shown",
    );
    assert.equal(commands.filter((c) => c.expect?.startsWith("{")).length, 5);
  });
});
