/**
 * Black-box: docs/vault.md's "First run" as a new user would type it, against dist/vault serve started
 * with the variables the doc exports: the first sign-up becomes the admin (there is no bootstrap
 * variable), a cookie write without X-Requested-With is refused, the key minted with it works, and a
 * second user needs the admin's invite. Each answer is checked against the comment the doc shows.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT, type RunningBinary, startBinary } from "../harness/binary.ts";
import { assertPrints, docCommands, exportedVariables, runDocCommands } from "../harness/doc_commands.ts";

const DOC = join(ROOT, "docs", "vault.md");

describe("docs/vault.md, First run", () => {
  let dir: string;
  let server: RunningBinary;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "vault-first-run-"));
    const env = await exportedVariables(await docCommands(DOC, "## First run"));
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
    const all = await docCommands(DOC, "## First run");
    // The test started the server; the rest runs as written.
    const commands = all.filter((c) => !/\bvault serve\b/.test(c.text));
    assert.equal(all.length - commands.length, 1);
    const outputs = await runDocCommands(commands, {
      dir,
      env: {},
      replace: ["http://127.0.0.1:7779", server.url],
    });
    commands.forEach((c, i) => assertPrints(c, outputs[i]!));
    assert.deepEqual(
      commands.map((c) => c.expect?.slice(0, 3)).filter((e) => e === "403"),
      ["403", "403"],
      "both refusals are shown",
    );
    assert.equal(commands.filter((c) => c.expect?.startsWith("{")).length, 5);
  });
});
