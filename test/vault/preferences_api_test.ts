/**
 * Black-box: each user's web-app preferences (GET/PUT /api/me/preferences, issue 21) through
 * `dist/vault`, on the embedded database and on PostgreSQL 15: per user, replaced whole, typed
 * (unknown keys and wrong types refused with issues), capped at 16 KiB, the CSRF header for cookie
 * writes, API keys (a read-only key reads only), and kept across a restart.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type RunningBinary, startBinary } from "../harness/binary.ts";
import { type PostgresServer, startPostgres } from "../harness/postgres.ts";
import { VaultClient, vaultEnv } from "../harness/vault.ts";

const person = (name: string) => ({
  email: `${name}@example.test`,
  password: `${name}-Pa55word-123`,
  name,
});

function suite(backend: "pglite" | "postgres") {
  describe(`vault preferences API on ${backend}`, () => {
    let home: string;
    let pg: PostgresServer | undefined;
    let server: RunningBinary;
    let databaseUrl: string | undefined;
    let alice: VaultClient;
    let bob: VaultClient;

    const start = async () => {
      server = await startBinary("vault", ["serve"], {
        cwd: home,
        env: vaultEnv(home, { databaseUrl }),
        timeoutMs: 60_000,
      });
    };
    const signIn = async (name: string) => {
      const client = new VaultClient(server.url);
      const res = await client.post("/api/auth/sign-in/email", person(name));
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return client;
    };

    before(async () => {
      home = await mkdtemp(join(tmpdir(), `vault-prefs-${backend}-`));
      if (backend === "postgres") {
        pg = await startPostgres();
        databaseUrl = pg.url;
      }
      await start();
      alice = new VaultClient(server.url);
      assert.equal((await alice.post("/api/auth/sign-up/email", person("alice"))).status, 201);
      const { code } = (await alice.write("POST", "/api/admin/invites", {})).body;
      bob = new VaultClient(server.url);
      const res = await bob.post("/api/auth/sign-up/email", { ...person("bob"), inviteCode: code });
      assert.equal(res.status, 201, JSON.stringify(res.body));
    });

    after(async () => {
      await server?.stop();
      await pg?.stop();
      await rm(home, { recursive: true, force: true });
    });

    it("starts empty, stores one user's preferences without touching another's, and replaces them whole", async () => {
      const empty = await alice.get("/api/me/preferences");
      assert.deepEqual([empty.status, empty.body], [200, { preferences: {}, updatedAt: null }]);

      const prefs = {
        sidebar: [{ id: "tags", visible: true }, { id: "files", visible: true }, {
          id: "search",
          visible: false,
        }],
        lineNumbers: false,
        live: false,
      };
      const put = await alice.write("PUT", "/api/me/preferences", prefs);
      assert.equal(put.status, 200, JSON.stringify(put.body));
      assert.deepEqual(put.body.preferences, prefs);
      assert.ok(Date.parse(put.body.updatedAt) > Date.now() - 60_000);
      assert.deepEqual((await alice.get("/api/me/preferences")).body.preferences, prefs);
      assert.deepEqual((await bob.get("/api/me/preferences")).body.preferences, {}, "per user");

      const bobs = await bob.write("PUT", "/api/me/preferences", { preview: false });
      assert.equal(bobs.status, 200);
      const replaced = await alice.write("PUT", "/api/me/preferences", { preview: true });
      assert.deepEqual(replaced.body.preferences, { preview: true }, "PUT replaces, it does not merge");
      assert.deepEqual((await alice.get("/api/me/preferences")).body.preferences, { preview: true });
      assert.deepEqual((await bob.get("/api/me/preferences")).body.preferences, { preview: false });
    });

    it("refuses unknown keys, wrong types and bad panel ids with issues, storing nothing", async () => {
      const before = (await alice.get("/api/me/preferences")).body;
      const cases: [unknown, string][] = [
        [{ theme: "dark" }, ""],
        [{ lineNumbers: "yes" }, "lineNumbers"],
        [{ sidebar: [{ id: "files", visible: true, width: 3 }] }, "sidebar.0"],
        [{ sidebar: [{ id: "<script>", visible: true }] }, "sidebar.0.id"],
        [{ sidebar: { files: true } }, "sidebar"],
        [[{ live: true }], ""],
        ["live", ""],
        [null, ""],
      ];
      for (const [body, path] of cases) {
        const res = await alice.write("PUT", "/api/me/preferences", body);
        assert.equal(res.status, 400, `${JSON.stringify(body)}: ${JSON.stringify(res.body)}`);
        assert.ok(Array.isArray(res.body.issues) && res.body.issues.length > 0, JSON.stringify(res.body));
        assert.ok(
          res.body.issues.some((i: { path: (string | number)[] }) => i.path.join(".") === path),
          `${JSON.stringify(body)} names ${path || "the body"}: ${JSON.stringify(res.body.issues)}`,
        );
      }
      const unknown = await alice.write("PUT", "/api/me/preferences", { preview: true, theme: "dark" });
      assert.match(JSON.stringify(unknown.body.issues), /theme/);
      assert.deepEqual((await alice.get("/api/me/preferences")).body, before, "nothing stored");
    });

    it("caps the document at 16 KiB", async () => {
      const panel = (i: number) => ({ id: `plugin.panel-${String(i).padStart(80, "0")}`, visible: true });
      const under = Array.from({ length: 100 }, (_, i) => panel(i));
      const over = Array.from({ length: 200 }, (_, i) => panel(i));
      assert.ok(JSON.stringify({ sidebar: under }).length <= 16 * 1024);
      assert.ok(JSON.stringify({ sidebar: over }).length > 16 * 1024);
      assert.equal((await alice.write("PUT", "/api/me/preferences", { sidebar: under })).status, 200);
      const big = await alice.write("PUT", "/api/me/preferences", { sidebar: over });
      assert.equal(big.status, 413, JSON.stringify(big.body));
      assert.equal((await alice.get("/api/me/preferences")).body.preferences.sidebar.length, 100);
    });

    it("needs a credential, and X-Requested-With on cookie writes; API keys read, and write if read-write", async () => {
      const anonymous = new VaultClient(server.url);
      assert.equal((await anonymous.get("/api/me/preferences")).status, 401);
      assert.equal((await anonymous.write("PUT", "/api/me/preferences", { live: true })).status, 401);
      const noHeader = await alice.call("PUT", "/api/me/preferences", { live: true });
      assert.equal(noHeader.status, 403);
      assert.match(noHeader.body.error, /X-Requested-With/);

      const keyOf = async (scope: string) =>
        (await alice.write("POST", "/api/api-keys", { name: `prefs-${scope}`, scope })).body.key as string;
      const writer = new VaultClient(server.url, { bearer: await keyOf("read-write") });
      writer.origin = undefined;
      const reader = new VaultClient(server.url, { bearer: await keyOf("read") });
      reader.origin = undefined;
      const set = await writer.call("PUT", "/api/me/preferences", { live: true, lineNumbers: true });
      assert.equal(set.status, 200, JSON.stringify(set.body));
      assert.deepEqual((await reader.get("/api/me/preferences")).body.preferences, {
        live: true,
        lineNumbers: true,
      });
      assert.equal((await reader.call("PUT", "/api/me/preferences", { live: false })).status, 403);
      assert.deepEqual((await alice.get("/api/me/preferences")).body.preferences, {
        live: true,
        lineNumbers: true,
      });
    });

    it("keeps them across a restart", async () => {
      await server.stop();
      await start();
      alice = await signIn("alice");
      assert.deepEqual((await alice.get("/api/me/preferences")).body.preferences, {
        live: true,
        lineNumbers: true,
      });
      const doc = await alice.get("/api/docs.json");
      assert.ok(doc.body.paths["/api/me/preferences"]?.put, "documented in the OpenAPI document");
    });
  });
}

suite("pglite");
suite("postgres");
