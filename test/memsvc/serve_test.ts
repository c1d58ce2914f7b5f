/**
 * Black-box: `dist/memsvc serve` as a user starts it, from an empty directory, on the embedded
 * database and on a real PostgreSQL 15.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runBinary, startBinary, withBinary } from "../harness/binary.ts";
import { type PostgresServer, startPostgres } from "../harness/postgres.ts";
import { memsvcEnv } from "../harness/memsvc.ts";

let home: string;
before(async () => {
  home = await mkdtemp(join(tmpdir(), "memsvc-serve-"));
});
after(async () => {
  await rm(home, { recursive: true, force: true });
});

const env = (extra: Record<string, string> = {}) => memsvcEnv(home, { extra });

describe("memsvc serve on the embedded database", () => {
  it("answers /health with exactly {ok:true}, the hardening headers and a 16-hex request id", async () => {
    await withBinary("memsvc", ["serve"], { cwd: home, env: env() }, async (server) => {
      const res = await fetch(`${server.url}/health`);
      assert.equal(res.status, 200);
      assert.equal(await res.text(), '{"ok":true}');
      assert.equal(res.headers.get("x-content-type-options"), "nosniff");
      assert.equal(res.headers.get("referrer-policy"), "no-referrer");
      assert.equal(res.headers.get("x-frame-options"), "DENY");
      assert.match(res.headers.get("x-request-id") ?? "", /^[0-9a-f]{16}$/);
      // The default data dir follows the platform convention under $HOME.
      assert.ok(existsSync(join(home, ".local", "share", "memsvc")), "default data dir created");
    });
  });

  it("replaces a request id spoofed by an untrusted peer, and honours one from a trusted proxy", async () => {
    await withBinary("memsvc", ["serve"], { cwd: home, env: env() }, async (server) => {
      const res = await fetch(`${server.url}/health`, { headers: { "x-request-id": "spoofed-by-client" } });
      await res.body?.cancel();
      assert.match(res.headers.get("x-request-id")!, /^[0-9a-f]{16}$/);
    });
    await withBinary(
      "memsvc",
      ["serve"],
      { cwd: home, env: env({ MEMSVC_TRUSTED_PROXIES: "127.0.0.1" }) },
      async (server) => {
        const res = await fetch(`${server.url}/health`, { headers: { "x-request-id": "edge-7f3a.1" } });
        await res.body?.cancel();
        assert.equal(res.headers.get("x-request-id"), "edge-7f3a.1");
        const logged = server.records().find((r) => r.msg === "request" && r.requestId === "edge-7f3a.1");
        assert.ok(logged, "the honoured id is on the access log line");
      },
    );
  });

  it("answers unknown paths with a JSON 404 carrying the same headers", async () => {
    await withBinary("memsvc", ["serve"], { cwd: home, env: env() }, async (server) => {
      const res = await fetch(`${server.url}/v1/does-not-exist`);
      assert.equal(res.status, 404);
      assert.match(res.headers.get("content-type") ?? "", /application\/json/);
      assert.deepEqual(await res.json(), { error: "not found" });
      assert.equal(res.headers.get("x-frame-options"), "DENY");
    });
  });

  it("keeps its data across restarts: the second start applies no migration and keeps the instance id", async () => {
    const dataDir = join(home, "restart");
    const first = await startBinary("memsvc", ["serve"], {
      cwd: home,
      env: env({ MEMSVC_DATA_DIR: dataDir }),
    });
    assert.equal(await first.stop("SIGTERM"), 0, "SIGTERM stops cleanly");
    const ready1 = first.records().find((r) => r.msg === "database ready")!;
    assert.ok((ready1.migrationsApplied as string[]).length > 0);
    assert.ok(first.records().some((r) => r.msg === "stopped"));
    // The compiled binary creates a new embedded database in a child process (initdb's memory is not kept).
    assert.ok(first.records().some((r) => r.msg === "embedded database created"));

    const second = await startBinary("memsvc", ["serve"], {
      cwd: home,
      env: env({ MEMSVC_DATA_DIR: dataDir }),
    });
    assert.equal(await second.stop("SIGINT"), 0, "SIGINT stops cleanly");
    const ready2 = second.records().find((r) => r.msg === "database ready")!;
    assert.deepEqual(ready2.migrationsApplied, []);
    assert.ok(!second.records().some((r) => r.msg === "embedded database created"));
    assert.equal(ready2.instanceId, ready1.instanceId);
  });

  it("refuses a second server on a data dir that is in use", async () => {
    const dataDir = join(home, "shared");
    await withBinary(
      "memsvc",
      ["serve"],
      { cwd: home, env: env({ MEMSVC_DATA_DIR: dataDir }) },
      async (server) => {
        const r = await runBinary("memsvc", ["serve"], { cwd: home, env: env({ MEMSVC_DATA_DIR: dataDir }) });
        assert.equal(r.code, 1);
        assert.match(r.stderr, new RegExp(`in use by process ${server.pid}`));
      },
    );
  });

  it("stops at start with a message naming a bad variable", async () => {
    const r = await runBinary("memsvc", ["serve"], { cwd: home, env: env({ MEMSVC_PORT: "http" }) });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /MEMSVC_PORT/);
    const url = await runBinary("memsvc", ["serve"], {
      cwd: home,
      env: env({ MEMSVC_DATABASE_URL: "mysql://root:hunter2@db/x" }),
    });
    assert.equal(url.code, 2);
    assert.match(url.stderr, /MEMSVC_DATABASE_URL/);
    assert.ok(!url.stderr.includes("hunter2"), "the password is not echoed");
  });
});

describe("memsvc serve on PostgreSQL 15", () => {
  let pg: PostgresServer;
  before(async () => {
    pg = await startPostgres();
  });
  after(async () => {
    await pg?.stop();
  });

  it("migrates once, answers /health, and keeps its instance id across restarts", async () => {
    const pgEnv = env({ MEMSVC_DATABASE_URL: pg.url });
    const first = await startBinary("memsvc", ["serve"], { cwd: home, env: pgEnv });
    const res = await fetch(`${first.url}/health`);
    assert.deepEqual(await res.json(), { ok: true });
    assert.equal(await first.stop(), 0);
    const second = await startBinary("memsvc", ["serve"], { cwd: home, env: pgEnv });
    assert.equal(await second.stop(), 0);
    const [a, b] = [first, second].map((s) => s.records().find((r) => r.msg === "database ready")!);
    assert.equal(a!.backend, "postgres");
    assert.ok((a!.migrationsApplied as string[]).length > 0);
    assert.deepEqual(b!.migrationsApplied, []);
    assert.equal(b!.instanceId, a!.instanceId);
  });
});
