/**
 * Black-box: the live event channel /ws/vault of `dist/vault serve`: credentials checked on the
 * upgrade (session cookie from the vault's origin, API key; a disabled user refused), events for
 * notes, folders and tags naming the web app's clientId or the MCP agent, events for notes shared with
 * the user, heartbeats, pings, the 64 KB limit (1008); and two processes on one PostgreSQL 15 and
 * one notes folder seeing each other's events once each, naming the writer, when the announcement
 * comes after the file (a slow database) or the shares table is locked; access ended through one
 * closes the sockets (/ws/vault, /ws/yjs) opened on the other within a second.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type RunningBinary, startBinary } from "../harness/binary.ts";
import { Client, StreamableHTTPClientTransport } from "../harness/mcp_client.ts";
import { type PostgresServer, startPostgres } from "../harness/postgres.ts";
import { VaultClient, vaultEnv } from "../harness/vault.ts";
import { Client as HttpClient } from "../harness/http_client.ts";
import postgres from "postgres";
import { Editor } from "../harness/yjs_client.ts";

// deno-lint-ignore no-explicit-any
type Event = Record<string, any>;

/** A /ws/vault socket that collects its JSON frames and its close code. */
class LiveSocket {
  readonly events: Event[] = [];
  closed: { code: number; reason: string } | undefined;
  readonly ws: WebSocket;
  readonly opened: Promise<void>;

  constructor(baseUrl: string, headers: Record<string, string>) {
    // Deno's WebSocket takes request headers (the cookie, the bearer, the Origin).
    const Ctor = WebSocket as unknown as new (
      url: string,
      opts: { headers: Record<string, string> },
    ) => WebSocket;
    this.ws = new Ctor(`${baseUrl.replace(/^http/, "ws")}/ws/vault`, { headers });
    this.ws.onmessage = (e) => this.events.push(JSON.parse(String(e.data)));
    this.opened = new Promise((resolve, reject) => {
      this.ws.onopen = () => resolve();
      this.ws.onerror = () => reject(new Error("the upgrade was refused"));
    });
    this.ws.onclose = (e) => (this.closed = { code: e.code, reason: e.reason });
  }

  async next(what: string, match: (e: Event) => boolean, ms = 10_000): Promise<Event> {
    const deadline = Date.now() + ms;
    for (;;) {
      const found = this.events.find(match);
      if (found) return found;
      if (Date.now() > deadline) assert.fail(`no ${what} within ${ms} ms: ${JSON.stringify(this.events)}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  close() {
    if (!this.closed) this.ws.close();
  }
}

async function signUp(server: RunningBinary, name: string, admin?: VaultClient) {
  const web = new VaultClient(server.url);
  const inviteCode = admin ? (await admin.write("POST", "/api/admin/invites", {})).body.code : undefined;
  const res = await web.post("/api/auth/sign-up/email", {
    email: `${name}@example.test`,
    password: `${name}-Pa55word-123`,
    name,
    ...(inviteCode ? { inviteCode } : {}),
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  const key = await web.write("POST", "/api/api-keys", { name: `${name}-key`, scope: "read-write" });
  assert.equal(key.status, 201);
  return { web, id: res.body.user.id as string, email: `${name}@example.test`, key: key.body.key as string };
}

describe("vault live events at /ws/vault", () => {
  let home: string;
  let server: RunningBinary;
  let alice: Awaited<ReturnType<typeof signUp>>;
  let bob: Awaited<ReturnType<typeof signUp>>;
  const sockets: LiveSocket[] = [];
  const open = async (headers: Record<string, string>) => {
    const s = new LiveSocket(server.url, headers);
    sockets.push(s);
    await s.opened;
    return s;
  };

  before(async () => {
    home = await mkdtemp(join(tmpdir(), "vault-live-"));
    server = await startBinary("vault", ["serve"], {
      cwd: home,
      env: vaultEnv(home, { extra: { VAULT_WS_HEARTBEAT_MS: "400" } }),
      timeoutMs: 60_000,
    });
    alice = await signUp(server, "alice");
    bob = await signUp(server, "bob", alice.web);
  });

  after(async () => {
    for (const s of sockets) s.close();
    await server?.stop();
    await rm(home, { recursive: true, force: true });
  });

  it("checks the credential on the upgrade", async () => {
    const plain = await fetch(`${server.url}/ws/vault`);
    assert.equal(plain.status, 401);
    await plain.body?.cancel();
    const foreign = await fetch(`${server.url}/ws/vault`, {
      headers: { cookie: alice.web.cookie!, origin: "https://evil.example" },
    });
    assert.equal(foreign.status, 403, "a cookie from another site's page");
    await foreign.body?.cancel();
    const noUpgrade = await fetch(`${server.url}/ws/vault`, {
      headers: { authorization: `Bearer ${alice.key}` },
    });
    assert.equal(noUpgrade.status, 426);
    await noUpgrade.body?.cancel();
    await assert.rejects(new LiveSocket(server.url, { authorization: "Bearer vault_nope" }).opened);
  });

  it("sends note and folder events naming the web app's clientId, heartbeats and pongs", async () => {
    const s = await open({ cookie: alice.web.cookie!, origin: server.url });
    assert.equal((await s.next("hello", (e) => e.kind === "hello")).userId, alice.id);
    const tab = { "X-Vault-Client-Id": "tab-1", "X-Requested-With": "x" };
    const write = (method: string, path: string, body?: unknown) => alice.web.call(method, path, body, tab);

    assert.equal((await write("POST", "/api/notes", { path: "Inbox/a.md", content: "hello" })).status, 201);
    const created = await s.next("note.created", (e) => e.kind === "note.created" && e.path === "Inbox/a.md");
    assert.deepEqual(
      {
        clientId: created.clientId,
        agentId: created.agentId,
        agentName: created.agentName,
        size: created.size,
      },
      { clientId: "tab-1", agentId: null, agentName: null, size: 5 },
    );
    assert.equal(created.ownerId, alice.id);
    assert.ok(Date.parse(created.updatedAt));
    const read = (await alice.web.get("/api/notes?path=Inbox/a.md")).body;
    await write("PUT", "/api/notes", { path: "Inbox/a.md", content: "hello!", ifVersion: read.version });
    assert.equal((await s.next("note.updated", (e) => e.kind === "note.updated")).size, 6);
    await write("POST", "/api/folders", { path: "Archive" });
    await s.next("folder.created", (e) => e.kind === "folder.created" && e.path === "Archive");
    await write("POST", "/api/notes/move", { from: "Inbox/a.md", to: "Archive/a.md" });
    const moved = await s.next("note.moved", (e) => e.kind === "note.moved");
    assert.deepEqual([moved.from, moved.to], ["Inbox/a.md", "Archive/a.md"]);
    await write("POST", "/api/notes/move", { from: "Archive/a.md", to: "Archive/b.md" });
    await s.next("note.renamed", (e) => e.kind === "note.renamed" && e.to === "Archive/b.md");
    await write("DELETE", "/api/notes?path=Archive/b.md");
    await s.next("note.deleted", (e) => e.kind === "note.deleted" && e.path === "Archive/b.md");

    // Tag changes, told as tag.added / tag.removed with the same actor.
    await write("POST", "/api/notes", { path: "Tags/t.md", content: "x #alpha" });
    const added = await s.next("tag.added alpha", (e) => e.kind === "tag.added" && e.tag === "alpha");
    assert.deepEqual([added.path, added.clientId], ["Tags/t.md", "tab-1"]);
    const t = (await alice.web.get("/api/notes?path=Tags/t.md")).body;
    await write("PUT", "/api/notes", { path: "Tags/t.md", content: "x #beta", ifVersion: t.version });
    await s.next("tag.added beta", (e) => e.kind === "tag.added" && e.tag === "beta");
    await s.next("tag.removed alpha", (e) => e.kind === "tag.removed" && e.tag === "alpha");
    await write("DELETE", "/api/notes?path=Tags/t.md");
    await s.next("tag.removed beta", (e) => e.kind === "tag.removed" && e.tag === "beta");
    assert.equal(s.events.filter((e) => e.kind.startsWith("tag.")).length, 4, JSON.stringify(s.events));

    await s.next("a heartbeat", (e) => e.kind === "heartbeat");
    s.ws.send(JSON.stringify({ type: "ping" }));
    await s.next("pong", (e) => e.kind === "pong");
  });

  it("names the MCP agent in the events of its edits", async () => {
    const s = await open({ authorization: `Bearer ${alice.key}` });
    const agent = new Client({ name: "live-test-agent", version: "1.0.0" });
    await agent.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/api/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${alice.key}` } },
      }),
    );
    try {
      const r = await agent.callTool({
        name: "create_note",
        arguments: { path: "Agent/x.md", content: "by agent" },
      });
      assert.ok(!r.isError, JSON.stringify(r));
      const e = await s.next(
        "the agent's note.created",
        (e) => e.kind === "note.created" && e.path === "Agent/x.md",
      );
      assert.equal(e.agentName, "live-test-agent");
      assert.ok(e.agentId);
      assert.equal(e.clientId, null);
    } finally {
      await agent.close();
    }
  });

  it("sends events of notes shared with the user, and nothing else of the owner's", async () => {
    await alice.web.write("POST", "/api/notes", { path: "Team/seed.md", content: "" });
    const share = await alice.web.write("POST", "/api/shares", {
      path: "Team/",
      email: bob.email,
      permission: "read",
    });
    assert.equal(share.status, 201, JSON.stringify(share.body));
    const s = await open({ authorization: `Bearer ${bob.key}` });
    await s.next("hello", (e) => e.kind === "hello");
    await alice.web.write("POST", "/api/notes", { path: "Private.md", content: "mine" });
    await alice.web.write("POST", "/api/notes", { path: "Team/plan.md", content: "ours" });
    const shared = await s.next("the shared note's event", (e) => e.path === "Team/plan.md");
    assert.equal(shared.ownerId, alice.id);
    await new Promise((r) => setTimeout(r, 300));
    assert.ok(!s.events.some((e) => e.path === "Private.md"), "the unshared note stays private");
  });

  it("closes a socket that sends more than 64 KB with 1008; a disabled user is refused and loses the open socket", async () => {
    const s = await open({ authorization: `Bearer ${bob.key}` });
    s.ws.send(JSON.stringify({ type: "ping", pad: "x".repeat(64 * 1024) }));
    const deadline = Date.now() + 5_000;
    while (!s.closed && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    assert.equal(s.closed?.code, 1008);

    const held = await open({ authorization: `Bearer ${bob.key}` });
    const disabled = await alice.web.write("PATCH", `/api/admin/users/${bob.id}`, { disabled: true });
    assert.equal(disabled.status, 200, JSON.stringify(disabled.body));
    await assert.rejects(new LiveSocket(server.url, { authorization: `Bearer ${bob.key}` }).opened);
    const res = await fetch(`${server.url}/ws/vault`, {
      headers: { cookie: bob.web.cookie!, origin: server.url },
    });
    assert.equal(res.status, 401);
    await res.body?.cancel();
    // The socket opened before is closed at its next heartbeat.
    const until = Date.now() + 5_000;
    while (!held.closed && Date.now() < until) await new Promise((r) => setTimeout(r, 25));
    assert.equal(held.closed?.code, 1008);
  });
});

describe("vault live events across two processes on one PostgreSQL 15", () => {
  let home: string;
  let pg: PostgresServer;
  let one: RunningBinary;
  let two: RunningBinary;
  let alice: Awaited<ReturnType<typeof signUp>>;
  let bob: Awaited<ReturnType<typeof signUp>>;

  before(async () => {
    home = await mkdtemp(join(tmpdir(), "vault-live-pg-"));
    pg = await startPostgres();
    // One notes folder and one database: two replicas of one vault. `one` announces its changes
    // 400 ms late, as a slow database would: `two`'s file watcher sees them on disk first.
    const env = vaultEnv(home, { databaseUrl: pg.url });
    one = await startBinary("vault", ["serve"], {
      cwd: home,
      env: { ...env, VAULT_TEST_ANNOUNCE_DELAY_MS: "400" },
      timeoutMs: 60_000,
    });
    two = await startBinary("vault", ["serve"], { cwd: home, env, timeoutMs: 60_000 });
    alice = await signUp(one, "alice");
    bob = await signUp(one, "bob", alice.web);
    assert.equal((await alice.web.write("POST", "/api/folders", { path: "Team" })).status, 201);
    const share = await alice.web.write("POST", "/api/shares", {
      path: "Team/",
      email: bob.email,
      permission: "read",
    });
    assert.equal(share.status, 201, JSON.stringify(share.body));
  });

  after(async () => {
    await one?.stop();
    await two?.stop();
    await pg?.stop();
    await rm(home, { recursive: true, force: true });
  });

  /** Each path's events on a socket, as `kind clientId` strings. */
  const told = (s: LiveSocket, paths: string[]) =>
    paths.map((p) =>
      s.events.filter((e) => e.path === p || e.to === p).map((e) => `${e.kind} ${e.clientId}`).join(", ")
    );

  it("a write through one process reaches the other's sockets once, naming the writer, though its announcement comes after the file", async () => {
    const owner = new LiveSocket(two.url, { authorization: `Bearer ${alice.key}` });
    const grantee = new LiveSocket(two.url, { authorization: `Bearer ${bob.key}` });
    try {
      await owner.opened;
      await grantee.opened;
      await owner.next("hello", (e) => e.kind === "hello");
      await grantee.next("hello", (e) => e.kind === "hello");
      const tab = { "X-Vault-Client-Id": "tab-on-one", "X-Requested-With": "x" };
      const paths = Array.from({ length: 50 }, (_, i) => `Team/n${i}.md`);
      const created = await Promise.all(
        paths.map((path) => alice.web.call("POST", "/api/notes", { path, content: `note ${path}` }, tab)),
      );
      assert.deepEqual(created.map((r) => r.status), paths.map(() => 201));
      const updated = await alice.web.call("PUT", "/api/notes", {
        path: "Team/n0.md",
        content: "changed",
        ifVersion: created[0]!.body.version,
      }, tab);
      assert.equal(updated.status, 200, JSON.stringify(updated.body));
      assert.equal(
        (await alice.web.call("DELETE", "/api/notes?path=Team/n1.md", undefined, tab)).status,
        200,
      );
      for (const s of [owner, grantee]) {
        await s.next("the last event", (e) => e.kind === "note.deleted" && e.path === "Team/n1.md");
      }
      // Past the disk wait (2 s) and the delayed announcements: nothing more may come.
      await new Promise((r) => setTimeout(r, 3_000));
      const expected = paths.map((_p, i) =>
        i === 0
          ? "note.created tab-on-one, note.updated tab-on-one"
          : i === 1
          ? "note.created tab-on-one, note.deleted tab-on-one"
          : "note.created tab-on-one"
      );
      assert.deepEqual(told(owner, paths), expected);
      assert.deepEqual(told(grantee, paths), expected, "a grantee's socket too");
    } finally {
      owner.close();
      grantee.close();
    }
  });

  it("a change on disk that no replica announced is told once, after the wait", async () => {
    const s = new LiveSocket(two.url, { authorization: `Bearer ${alice.key}` });
    try {
      await s.opened;
      await s.next("hello", (e) => e.kind === "hello");
      const { writeFile } = await import("node:fs/promises");
      await writeFile(join(home, "notes", "users", alice.id, "Team", "by-hand.md"), "edited in an editor");
      const e = await s.next("the disk change", (e) => e.path === "Team/by-hand.md");
      assert.deepEqual([e.kind, e.clientId], ["note.created", null]);
      await new Promise((r) => setTimeout(r, 1_500));
      assert.deepEqual(told(s, ["Team/by-hand.md"]), ["note.created null"]);
    } finally {
      s.close();
    }
  });

  it("while the shares table is locked, a write's event still comes once, with its client id", async () => {
    // Writes through `two` (announcing at once), sockets on `one`; the lock holds both replicas' share
    // lookups, which `two` makes for a socket of its own before it can announce (the case).
    const s = new LiveSocket(one.url, { authorization: `Bearer ${alice.key}` });
    const writerSide = new LiveSocket(two.url, { authorization: `Bearer ${alice.key}` });
    const sql = postgres(pg.url, { max: 1, onnotice: () => {} });
    try {
      await s.opened;
      await writerSide.opened;
      await s.next("hello", (e) => e.kind === "hello");
      const viaTwo = new HttpClient(two.url, { bearer: alice.key });
      const headers = { "X-Vault-Client-Id": "tab-on-two" };
      const paths = ["Team/locked-a.md", "Team/locked-b.md"];
      let writes: Promise<{ status: number }>[] = [];
      await sql.begin(async (tx) => {
        await tx`lock table note_shares in access exclusive mode`;
        writes = paths.map((path) => viaTwo.call("POST", "/api/notes", { path, content: path }, headers));
        await new Promise((r) => setTimeout(r, 1_500));
      });
      assert.deepEqual((await Promise.all(writes)).map((r) => r.status), [201, 201]);
      for (const p of paths) await s.next(p, (e) => e.path === p);
      await new Promise((r) => setTimeout(r, 1_500));
      assert.deepEqual(told(s, paths), paths.map(() => "note.created tab-on-two"));
      assert.deepEqual(told(writerSide, paths), paths.map(() => "note.created tab-on-two"));
    } finally {
      s.close();
      writerSide.close();
      await sql.end();
    }
  });

  it("access ended through one replica closes the sockets opened on the other within a second", async () => {
    await alice.web.write("POST", "/api/notes", { path: "Team/edited.md", content: "x" });
    const wsUrl = `${two.url.replace(/^http/, "ws")}/ws/yjs?path=Team/edited.md&owner=${alice.id}`;
    const editor = new Editor(wsUrl, { authorization: `Bearer ${bob.key}` }, "bob");
    const second = await bob.web.write("POST", "/api/api-keys", { name: "bob-second", scope: "read" });
    const events = new LiveSocket(two.url, { authorization: `Bearer ${second.body.key}` });
    try {
      await editor.opened;
      await events.opened;
      const closed = async (what: string, done: () => boolean) => {
        const deadline = Date.now() + 1_500;
        while (!done()) {
          if (Date.now() > deadline) assert.fail(`${what} still open after 1.5 s`);
          await new Promise((r) => setTimeout(r, 25));
        }
      };
      const shareId = (await alice.web.get("/api/shares")).body.given[0].id;
      assert.equal((await alice.web.write("DELETE", `/api/shares/${shareId}`)).status, 204);
      await closed("the editor of the unshared note", () => editor.closed !== undefined);
      assert.equal(editor.closed!.code, 1008);
      assert.equal((await bob.web.write("DELETE", `/api/api-keys/${second.body.id}`)).status, 204);
      await closed("the event socket of the revoked key", () => events.closed !== undefined);
      assert.equal(events.closed!.code, 1008);
    } finally {
      editor.close();
      events.close();
    }
  });
});
