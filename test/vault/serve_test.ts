/** Black-box: `vault serve` configuration: fails fast naming what is missing; --help has examples. */
import assert from "node:assert/strict";
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { runBinary, startBinary } from "../harness/binary.ts";
import { vaultEnv } from "../harness/vault.ts";

describe("vault serve", () => {
  let home: string;
  before(async () => {
    home = await mkdtemp(join(tmpdir(), "vault-serve-"));
  });
  after(() => rm(home, { recursive: true, force: true }));

  it("refuses to start without BETTER_AUTH_SECRET or DATABASE_URL, naming each", async () => {
    const env = vaultEnv(home);
    for (const name of ["BETTER_AUTH_SECRET", "DATABASE_URL"]) {
      const { [name]: _dropped, ...rest } = env;
      const res = await runBinary("vault", ["serve"], { env: rest });
      assert.equal(res.code, 2, res.stderr);
      assert.match(res.stderr, new RegExp(`${name} is required but not set`));
    }
    const both = await runBinary("vault", ["serve"], { env: { HOME: home } });
    assert.match(both.stderr, /BETTER_AUTH_SECRET.*DATABASE_URL|DATABASE_URL.*BETTER_AUTH_SECRET/);
    const short = await runBinary("vault", ["serve"], { env: { ...env, BETTER_AUTH_SECRET: "short" } });
    assert.equal(short.code, 2);
    assert.match(short.stderr, /BETTER_AUTH_SECRET: must be at least 32 characters/);
    assert.doesNotMatch(short.stderr, /"short"/, "a secret's value is never echoed");
    const mysql = await runBinary("vault", ["serve"], { env: { ...env, DATABASE_URL: "mysql://db/vault" } });
    assert.equal(mysql.code, 2);
    assert.match(
      mysql.stderr,
      /DATABASE_URL: must be a postgres:\/\/ or postgresql:\/\/ URL, or a directory/,
    );
  });

  it("--help describes the variables and shows examples", async () => {
    const res = await runBinary("vault", ["serve", "--help"]);
    assert.equal(res.code, 0);
    assert.match(res.stdout, /BETTER_AUTH_SECRET/);
    assert.match(res.stdout, /DATABASE_URL=\.\/vault-db vault serve/);
    assert.match(res.stdout, /--data-dir/);
    assert.match((await runBinary("vault", ["--help"])).stdout, /serve/);
  });

  it("DATABASE_URL as a directory is the embedded database; --port and --data-dir override", async () => {
    const env = vaultEnv(home, { databaseUrl: "relative-db" });
    const notes = join(home, "my-notes");
    const server = await startBinary("vault", ["serve", "--port", "0", "--data-dir", notes], {
      cwd: home,
      env: { ...env, VAULT_PORT: "1" },
      timeoutMs: 60_000,
    });
    try {
      assert.equal((await fetch(`${server.url}/health`)).status, 200);
      assert.ok((await stat(join(home, "relative-db"))).isDirectory(), "relative to the working directory");
      assert.ok((await stat(notes)).isDirectory());
      assert.ok(server.records().some((r) => r.msg === "database ready" && r.backend === "pglite"));
    } finally {
      assert.equal(await server.stop(), 0);
    }
  });
});
