/**
 * Black-box: plugins of `dist/vault serve` (embedded database). The two example plugins installed
 * through the admin API from their folders (manifest validation errors first), the word count's route
 * over HTTP and as a dynamic MCP tool through the SDK's client, its client entry at its stable URL;
 * storage isolated between plugins and between users; and hostile plugins (throws in activate, loops
 * forever, allocates without bound, dies after answering) stopped and marked error while the server and
 * the other plugins keep serving. On the embedded database and on PostgreSQL 15.
 */
import assert from "node:assert/strict";
import { cp, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, before, describe, it } from "node:test";
import { type RunningBinary, startBinary } from "../harness/binary.ts";
import { type PostgresServer, startPostgres } from "../harness/postgres.ts";
import { Client, StreamableHTTPClientTransport } from "../harness/mcp_client.ts";
import { VaultClient, vaultEnv } from "../harness/vault.ts";

const ROOT = resolve(import.meta.dirname!, "..", "..");
const EXAMPLES = join(ROOT, "examples", "vault-plugins");
const FIXTURES = join(ROOT, "test", "fixtures", "vault-plugins");
const HOSTILE = ["thrower", "looper", "hog", "crasher", "chatter", "keeper-a", "keeper-b", "bad-manifest"];

async function until(what: string, check: () => boolean | Promise<boolean>, ms = 10_000) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`not within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

for (const backend of ["embedded", "postgres"] as const) {
  describe(`vault plugins (${backend} database)`, () => {
    let home: string;
    let pg: PostgresServer | undefined;
    let server: RunningBinary;
    let replica: RunningBinary | undefined;
    let admin: VaultClient;
    let bob: VaultClient;
    let adminKey = "";
    let bobId = "";
    let readKey = "";
    const clients: Client[] = [];

    const plugin = async (id: string) => {
      const list = await admin.get("/api/admin/plugins");
      assert.equal(list.status, 200, JSON.stringify(list.body));
      // deno-lint-ignore no-explicit-any
      return list.body.plugins.find((p: any) => p.id === id);
    };
    const enable = async (id: string) => {
      const res = await admin.write("POST", `/api/admin/plugins/${id}/enable`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body;
    };
    const active = async (id: string) => {
      const p = await enable(id);
      assert.equal(p.state, "active", `${id}: ${p.error}`);
    };
    const connect = async (key: string) => {
      const client = new Client({ name: "plugins-test", version: "1.0.0" });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${server.url}/api/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${key}` } },
        }),
      );
      clients.push(client);
      return client;
    };
    const serving = async () => {
      assert.equal((await fetch(`${server.url}/health`)).status, 200);
      const note = await admin.get("/api/notes?path=Words.md");
      assert.equal(note.status, 200, JSON.stringify(note.body));
    };

    before(async () => {
      home = await mkdtemp(join(tmpdir(), "vault-plugins-"));
      if (backend === "postgres") pg = await startPostgres();
      // The hostile plugins are already in the plugins folder (found at start, not enabled).
      for (const id of HOSTILE) await cp(join(FIXTURES, id), join(home, "plugins", id), { recursive: true });
      const env = vaultEnv(home, {
        databaseUrl: pg?.url,
        extra: {
          VAULT_PLUGINS_DIR: join(home, "plugins"),
          VAULT_PLUGIN_TIMEOUT_MS: "3000",
          VAULT_PLUGIN_MEMORY_MB: "200",
        },
      });
      server = await startBinary("vault", ["serve"], { cwd: home, env, timeoutMs: 60_000 });
      // On PostgreSQL a second replica shares the database, the notes and the plugins folder.
      if (pg) replica = await startBinary("vault", ["serve"], { cwd: home, env, timeoutMs: 60_000 });
      admin = new VaultClient(server.url);
      const res = await admin.post("/api/auth/sign-up/email", {
        email: "admin@example.test",
        password: "admin-Pa55word-123",
        name: "admin",
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      adminKey = (await admin.write("POST", "/api/api-keys", { name: "rw", scope: "read-write" })).body.key;
      readKey = (await admin.write("POST", "/api/api-keys", { name: "ro", scope: "read" })).body.key;
      const code = (await admin.write("POST", "/api/admin/invites", {})).body.code;
      bob = new VaultClient(server.url);
      const b = await bob.post("/api/auth/sign-up/email", {
        email: "bob@example.test",
        password: "bob-Pa55word-1234",
        name: "bob",
        inviteCode: code,
      });
      assert.equal(b.status, 201, JSON.stringify(b.body));
      bobId = b.body.user.id;
      const note = await admin.write("POST", "/api/notes", {
        path: "Words.md",
        content: "---\ntitle: x\n---\nOne two three four five.\n\n```\nnot counted here\n```\nsix",
      });
      assert.equal(note.status, 201, JSON.stringify(note.body));
    });

    after(async () => {
      for (const c of clients) await c.close().catch(() => {});
      await replica?.stop();
      await server?.stop();
      await pg?.stop();
      await rm(home, { recursive: true, force: true });
    });

    it("the admin API validates: a bad manifest, a relative or missing folder, unknown plugins and settings", async () => {
      const bad = await plugin("bad-manifest");
      assert.equal(bad.state, "error");
      assert.match(bad.error, /manifest\.json\.id/);
      const install = await admin.write("POST", "/api/admin/plugins", {
        directory: join(FIXTURES, "bad-manifest"),
      });
      assert.equal(install.status, 400, JSON.stringify(install.body));
      const paths = install.body.issues.map((i: { path: string[] }) => i.path.join("."));
      for (
        const p of ["manifest.json.id", "manifest.json.name", "manifest.json.version", "manifest.json.server"]
      ) {
        assert.ok(paths.includes(p), `${p} in ${JSON.stringify(paths)}`);
      }
      assert.ok(install.body.issues.some((i: { code: string }) => i.code === "unrecognized_keys"));
      assert.equal(
        (await admin.write("POST", "/api/admin/plugins", { directory: "relative/dir" })).status,
        400,
      );
      assert.equal(
        (await admin.write("POST", "/api/admin/plugins", { directory: join(home, "nowhere") })).status,
        400,
      );
      assert.equal((await admin.write("POST", "/api/admin/plugins", {})).status, 400);
      assert.equal((await admin.write("POST", "/api/admin/plugins/nope/enable")).status, 404);
      assert.equal((await admin.write("POST", "/api/admin/plugins/bad-manifest/enable")).status, 409);
      // Only an admin's session administers plugins.
      assert.equal((await bob.get("/api/admin/plugins")).status, 403);
      const viaKey = new VaultClient(server.url, { bearer: adminKey });
      assert.equal((await viaKey.get("/api/admin/plugins")).status, 403);
    });

    it("installs and enables the examples; the word count answers over HTTP, MCP and its client entry", async () => {
      for (const id of ["word-count", "table-fence"]) {
        const res = await admin.write("POST", "/api/admin/plugins", { directory: join(EXAMPLES, id) });
        assert.equal(res.status, 201, JSON.stringify(res.body));
        assert.equal(res.body.state, "installed");
        assert.equal(res.body.enabled, false);
      }
      const again = await admin.write("POST", "/api/admin/plugins", {
        directory: join(EXAMPLES, "word-count"),
      });
      assert.equal(again.status, 409);
      // Not enabled: no client entry, no routes.
      assert.equal((await admin.get("/api/plugins/word-count/client.js")).status, 404);
      assert.equal((await admin.get("/api/plugins/word-count/count?path=Words.md")).status, 503);

      const wc = await enable("word-count");
      assert.equal(wc.state, "active", JSON.stringify(wc));
      assert.deepEqual(wc.routes.map((r: { path: string }) => r.path).sort(), ["/count", "/totals"]);
      await active("table-fence");

      const count = await admin.get("/api/plugins/word-count/count?path=Words.md");
      assert.equal(count.status, 200, JSON.stringify(count.body));
      assert.equal(count.body.words, 6);
      assert.equal((await admin.get("/api/plugins/word-count/count")).status, 400);
      // The route acts as its caller: bob has no Words.md.
      const bobs = await bob.get("/api/plugins/word-count/count?path=Words.md");
      assert.equal(bobs.status, 502, JSON.stringify(bobs.body));
      assert.match(bobs.body.error, /404/);

      // Settings: an admin's global value, a user's own per-user value, wrong types refused.
      const wrong = await admin.write("PUT", "/api/admin/plugins/word-count/settings", {
        values: { wordsPerMinute: "fast", showCharacters: true, unknown: 1 },
      });
      assert.equal(wrong.status, 400);
      assert.deepEqual(
        wrong.body.issues.map((i: { path: string[] }) => i.path.join(".")).sort(),
        ["values.showCharacters", "values.unknown", "values.wordsPerMinute"],
      );
      const set = await admin.write("PUT", "/api/admin/plugins/word-count/settings", {
        values: { wordsPerMinute: 3 },
      });
      assert.equal(set.status, 200, JSON.stringify(set.body));
      assert.equal((await admin.get("/api/plugins/word-count/count?path=Words.md")).body.minutes, 2);
      const mine = await bob.write("PUT", "/api/plugins/word-count/settings", {
        values: { showCharacters: true },
      });
      assert.equal(mine.status, 200, JSON.stringify(mine.body));
      assert.equal(mine.body.values.showCharacters, true);
      assert.equal((await admin.get("/api/plugins/word-count/settings")).body.values.showCharacters, false);

      // The client entry at its stable URL, and the list the web app loads.
      const client = await fetch(`${server.url}/api/plugins/word-count/client.js`, {
        headers: { authorization: `Bearer ${adminKey}` },
      });
      assert.equal(client.status, 200);
      assert.match(client.headers.get("content-type") ?? "", /javascript/);
      assert.match(await client.text(), /registerStatusBarItem/);
      const listed = await bob.get("/api/plugins");
      assert.deepEqual(
        listed.body.plugins.map((p: { id: string; clientUrl: string }) => [p.id, p.clientUrl]),
        [["table-fence", "/api/plugins/table-fence/client.js"], [
          "word-count",
          "/api/plugins/word-count/client.js",
        ]],
      );

      // A saved note reaches the plugin's event handler, which keeps per-user totals in its storage.
      await admin.write("POST", "/api/notes", { path: "More.md", content: "seven eight" });
      await until(
        "the totals",
        async () => (await admin.get("/api/plugins/word-count/totals")).body.words === 2,
      );

      // The SDK's MCP client sees the routes as tools and calls one; a read-only key gets GET routes only.
      const mcp = await connect(adminKey);
      const tools = (await mcp.listTools()).tools.map((t) => t.name);
      assert.ok(tools.includes("word-count_count_words"), tools.join());
      assert.ok(tools.includes("list_notes"));
      const r = await mcp.callTool({
        name: "word-count_count_words",
        arguments: { query: { path: "Words.md" } },
      });
      assert.ok(!r.isError, JSON.stringify(r));
      assert.equal((r.structuredContent as { words: number }).words, 6);
      const ro = await connect(readKey);
      assert.ok((await ro.listTools()).tools.some((t) => t.name === "word-count_totals"));
    });

    it("keeps each plugin's storage to itself, and each user's to that user", async () => {
      await active("keeper-a");
      await active("keeper-b");
      assert.equal((await admin.write("PUT", "/api/plugins/keeper-a/value", { value: "a's" })).status, 200);
      assert.equal((await bob.write("PUT", "/api/plugins/keeper-b/value", { value: "b's" })).status, 200);
      const a = await admin.get("/api/plugins/keeper-a/value");
      assert.deepEqual(a.body, { secret: "a's", mine: "a's", keys: ["secret"] });
      const b = await admin.get("/api/plugins/keeper-b/value");
      assert.deepEqual(b.body, { secret: "b's", mine: null, keys: ["secret"] });
      assert.equal((await bob.get("/api/plugins/keeper-b/value")).body.mine, "b's");
      const other = await admin.get(`/api/plugins/keeper-b/other?user=${bobId}`);
      assert.equal(other.status, 403, JSON.stringify(other.body));
    });

    it("stops a plugin that throws, loops forever, allocates without bound or dies, and keeps serving", async () => {
      // A session opened before the plugins start sees their tools come and go.
      const session = await connect(adminKey);
      const toolNames = async () => (await session.listTools()).tools.map((t) => t.name);
      assert.ok(!(await toolNames()).includes("looper_get_ping"));
      const thrower = await enable("thrower");
      assert.equal(thrower.state, "error");
      assert.match(thrower.error, /thrower refuses to start/);

      await active("looper");
      assert.equal((await admin.get("/api/plugins/looper/ping")).status, 200);
      assert.ok((await toolNames()).includes("looper_get_ping"));
      const started = Date.now();
      const spin = await admin.get("/api/plugins/looper/spin");
      assert.equal(spin.status, 504, JSON.stringify(spin.body));
      assert.ok(Date.now() - started < 10_000);
      const looper = await plugin("looper");
      assert.equal(looper.state, "error");
      assert.match(looper.error, /longer than its limit of 3000 ms/);
      assert.equal((await admin.get("/api/plugins/looper/ping")).status, 503);
      assert.ok(!(await toolNames()).includes("looper_get_ping"), "a stopped plugin's tools are gone");
      await serving();

      await active("hog");
      const eat = await admin.get("/api/plugins/hog/eat");
      assert.equal(eat.status, 502, JSON.stringify(eat.body));
      const hog = await plugin("hog");
      assert.equal(hog.state, "error");
      assert.match(hog.error, /more than its limit of 200 MB/);
      await serving();

      await active("crasher");
      assert.equal((await admin.write("POST", "/api/plugins/crasher/later", {})).status, 200);
      await until("the crasher in error", async () => (await plugin("crasher")).state === "error");
      assert.match((await plugin("crasher")).error, /exited/);

      // A line without end is cut off at 8 MB, not kept in the server's memory.
      await active("chatter");
      assert.equal((await admin.write("POST", "/api/plugins/chatter/talk", {})).status, 200);
      await until("the chatter in error", async () => (await plugin("chatter")).state === "error");
      assert.match((await plugin("chatter")).error, /a line over 8388608 bytes/);

      // The others keep running; an errored plugin comes back when enabled again.
      assert.equal((await admin.get("/api/plugins/word-count/count?path=Words.md")).body.words, 6);
      await active("looper");
      assert.equal((await admin.get("/api/plugins/looper/ping")).status, 200);
      const off = await admin.write("POST", "/api/admin/plugins/looper/disable");
      assert.equal(off.body.state, "unloaded");
      assert.equal((await admin.get("/api/plugins/looper/ping")).status, 503);
      await serving();
    });

    if (backend === "postgres") {
      it("a second replica follows enables and disables made through the first", async () => {
        const two = new VaultClient(replica!.url, { bearer: adminKey });
        const count = () => two.get("/api/plugins/word-count/count?path=Words.md");
        await until("word-count active on the replica", async () => (await count()).status === 200, 15_000);
        assert.equal((await count()).body.words, 6);
        assert.equal((await admin.write("POST", "/api/admin/plugins/word-count/disable")).status, 200);
        await until("word-count unloaded on the replica", async () => (await count()).status === 503, 15_000);
        await active("word-count");
        await until("word-count back on the replica", async () => (await count()).status === 200, 15_000);
      });
    }
  });
}
