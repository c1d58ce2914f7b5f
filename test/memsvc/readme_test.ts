/**
 * Black-box: README.md's memsvc section, as a new user would run it. The server is started with the
 * variables the README exports; the commands after it (health, sign-in, one remember and one search
 * with their JSON, the OpenAPI document) run in bash against dist/memsvc serve, and each answer is
 * checked against the comment the README puts beside it.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT, type RunningBinary, startBinary } from "../harness/binary.ts";
import { assertPrints, docCommands, exportedVariables, runDocCommands } from "../harness/doc_commands.ts";

const README = join(ROOT, "README.md");

describe("README.md, memsvc section", () => {
  let dir: string;
  let server: RunningBinary;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "memsvc-readme-"));
    const env = await exportedVariables(await docCommands(README, "## memsvc", 0));
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
    const commands = await docCommands(README, "## memsvc", 1);
    const shown = commands.map((c) => c.text.match(/\/(v1\/\w+|health|openapi\.json)/)?.[1]);
    for (const route of ["health", "v1/remember", "v1/search", "openapi.json"]) {
      assert.ok(shown.includes(route), `the README shows ${route}`);
    }
    const outputs = await runDocCommands(commands, {
      dir: join(dir, "shell"),
      env: {},
      replace: ["http://127.0.0.1:7778", server.url],
    });
    commands.forEach((c, i) => assertPrints(c, outputs[i]!));
    assert.equal(commands.filter((c) => c.expect?.startsWith("{")).length, 3, "three answers are shown");
    assert.equal(JSON.parse(outputs.at(-1)!).openapi.slice(0, 3), "3.1");
  });
});
