/**
 * Black-box: the request path's caches (API token → owner, user → active project) never serve what
 * changed. On PostgreSQL two servers share the database: a change made through one is honoured by the
 * other, which had the old value cached, within the notice's delivery (asserted: 2 s); the server
 * that made it honours it at once. On the embedded database (one server) everything is at once.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RunningBinary, startBinary } from "../harness/binary.ts";
import { Client } from "../harness/http_client.ts";
import { memsvcEnv } from "../harness/memsvc.ts";
import { type PostgresServer, startPostgres } from "../harness/postgres.ts";

const ADMIN = { email: "root@example.test", password: "bootstrap-Pa55word!" };
const USER = { email: "lin@example.test", password: "lin-Pa55word-123" };
/** How long another server may take to hear a change (a NOTIFY on a loaded machine). */
const NOTICE_BOUND_MS = 2_000;

async function signIn(url: string, who: { email: string; password: string }): Promise<Client> {
  const client = new Client(url, { origin: url });
  const res = await client.post("/api/auth/sign-in/email", who);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return client;
}

async function mint(session: Client, label: string): Promise<{ token: string; tokenHash: string }> {
  const res = await session.post("/v1/me/tokens", { label });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body;
}

let n = 0;
/**
 * Remembers a new fact with the bearer and returns the project it was stored in; "unreadable" when the
 * caller cannot read it back (a write that raced a removal from its project, before the notice came).
 */
async function rememberedInto(client: Client): Promise<string | null> {
  const res = await client.post("/v1/remember", { content: `request cache fact number ${++n} for the test` });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  const entry = await client.get(`/v1/memories/${res.body.id}`);
  if (entry.status === 404) return "unreadable";
  assert.equal(entry.status, 200, JSON.stringify(entry.body));
  return entry.body.project;
}

/** Polls `check` until it holds or `ms` have passed; returns how long it took (throws on timeout). */
async function within(ms: number, what: string, check: () => Promise<boolean>): Promise<number> {
  const started = performance.now();
  for (;;) {
    if (await check()) return performance.now() - started;
    if (performance.now() - started > ms) assert.fail(`${what}: not seen within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function suite(backend: "pglite" | "postgres") {
  describe(`memsvc request caches on ${backend}`, () => {
    const homes: string[] = [];
    let pg: PostgresServer | undefined;
    /** `a` makes changes; `b` is another server on the same database (on PGlite: `a` itself). */
    let a: RunningBinary;
    let b: RunningBinary | undefined;
    let other: string;
    let admin: Client;
    let user: Client;
    let userId: string;

    const start = async () => {
      const home = await mkdtemp(join(tmpdir(), `memsvc-caches-${backend}-`));
      homes.push(home);
      const extra: Record<string, string> = pg ? { MEMSVC_DATABASE_URL: pg.url } : {};
      return await startBinary("memsvc", ["serve"], {
        cwd: home,
        env: memsvcEnv(home, { admin: ADMIN, extra }),
      });
    };

    before(async () => {
      if (backend === "postgres") pg = await startPostgres();
      a = await start();
      if (pg) b = await start();
      other = (b ?? a).url;
      admin = await signIn(a.url, ADMIN);
      const created = await admin.post("/api/auth/admin/create-user", { ...USER, name: "Lin", role: "user" });
      assert.equal(created.status, 200, JSON.stringify(created.body));
      userId = created.body.user.id;
      user = await signIn(a.url, USER);
    });

    after(async () => {
      await b?.stop();
      await a?.stop();
      await pg?.stop();
      for (const home of homes) await rm(home, { recursive: true, force: true });
    });

    it("a deleted token is refused at once where it was deleted and by the other server within the bound", async () => {
      const { token, tokenHash } = await mint(user, "cached");
      const here = new Client(a.url, { bearer: token });
      const there = new Client(other, { bearer: token });
      // Both servers have resolved (and so cached) the token.
      assert.equal(await rememberedInto(here), null);
      assert.equal(await rememberedInto(there), null);
      assert.equal((await user.delete(`/v1/me/tokens/${tokenHash}`)).status, 200);
      assert.equal((await here.get("/v1/recent")).status, 401);
      await within(NOTICE_BOUND_MS, "deletion on the other server", async () => {
        return (await there.get("/v1/recent")).status === 401;
      });
    });

    it("a rotated token is refused by the other server; the new one works there", async () => {
      const { token } = await mint(user, "rotating");
      const there = new Client(other, { bearer: token });
      assert.equal((await there.get("/v1/recent")).status, 200);
      const rotated = await new Client(a.url, { bearer: token }).post("/v1/auth/rotate-token");
      assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
      await within(NOTICE_BOUND_MS, "rotation on the other server", async () => {
        return (await there.get("/v1/recent")).status === 401;
      });
      assert.equal((await new Client(other, { bearer: rotated.body.token }).get("/v1/recent")).status, 200);
    });

    it("a ban reaches tokens cached by both servers; unbanning lets them in again", async () => {
      const { token } = await mint(user, "before-ban");
      const here = new Client(a.url, { bearer: token });
      const there = new Client(other, { bearer: token });
      assert.equal((await here.get("/v1/recent")).status, 200);
      assert.equal((await there.get("/v1/recent")).status, 200);
      assert.equal((await admin.post("/api/auth/admin/ban-user", { userId })).status, 200);
      try {
        await within(
          NOTICE_BOUND_MS,
          "ban on this server",
          async () => (await here.get("/v1/recent")).status === 401,
        );
        await within(NOTICE_BOUND_MS, "ban on the other server", async () => {
          return (await there.get("/v1/recent")).status === 401;
        });
      } finally {
        assert.equal((await admin.post("/api/auth/admin/unban-user", { userId })).status, 200);
      }
      await within(NOTICE_BOUND_MS, "unban", async () => (await there.get("/v1/recent")).status === 200);
      user = await signIn(a.url, USER);
    });

    it("switching the active project is seen by the next remember on either server", async () => {
      const { token } = await mint(user, "projects");
      const here = new Client(a.url, { bearer: token });
      const there = new Client(other, { bearer: token });
      assert.equal((await here.call("DELETE", "/v1/me/active-project")).status < 300, true);
      assert.equal(await rememberedInto(here), null);
      assert.equal(await rememberedInto(there), null);
      const made = await here.post("/v1/projects", { name: "cache-switch" });
      assert.equal(made.status, 201, JSON.stringify(made.body));
      const set = await here.call("PUT", "/v1/me/active-project", { project: made.body.id });
      assert.equal(set.status, 200, JSON.stringify(set.body));
      assert.equal(await rememberedInto(here), made.body.id, "the server that switched, at once");
      await within(NOTICE_BOUND_MS, "the switch on the other server", async () => {
        return (await rememberedInto(there)) === made.body.id;
      });
      assert.ok((await here.call("DELETE", "/v1/me/active-project")).status < 300);
      assert.equal(await rememberedInto(here), null, "clearing it, at once");
      await within(NOTICE_BOUND_MS, "clearing on the other server", async () => {
        return (await rememberedInto(there)) === null;
      });
    });

    it("a member removed from the project that is their active one stops writing into it", async () => {
      const { token } = await mint(user, "member");
      const here = new Client(a.url, { bearer: token });
      const there = new Client(other, { bearer: token });
      const shared = await admin.post("/v1/projects", { name: "cache-shared" });
      assert.equal(shared.status, 201, JSON.stringify(shared.body));
      const id = shared.body.id;
      assert.equal((await admin.post(`/v1/projects/${id}/members`, { email: USER.email })).status, 201);
      assert.equal((await here.call("PUT", "/v1/me/active-project", { project: id })).status, 200);
      assert.equal(await rememberedInto(here), id);
      await within(NOTICE_BOUND_MS, "the shared project on the other server", async () => {
        return (await rememberedInto(there)) === id;
      });
      const removed = await admin.delete(`/v1/projects/${id}/members/${encodeURIComponent(USER.email)}`);
      assert.ok(removed.status < 300, JSON.stringify(removed.body));
      assert.equal(await rememberedInto(here), null, "the server that removed them, at once");
      await within(NOTICE_BOUND_MS, "the removal on the other server", async () => {
        return (await rememberedInto(there)) === null;
      });
    });
  });
}

suite("pglite");
suite("postgres");
