/**
 * Black-box: the vault's notes, search and sharing API (issue 19) through `dist/vault`, on the
 * embedded database and on PostgreSQL 15: CRUD with optimistic versions, the 1 MiB limit, path
 * traversal in 30+ spellings, rename with link rewriting, trash, folders, tags, backlinks, graph,
 * daily notes, templates, canvases, attachments, search (and its 400), the index following edits
 * made on disk and edits made while the server was down, and sharing across three users.
 */
import assert from "node:assert/strict";
import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type RunningBinary, startBinary } from "../harness/binary.ts";
import { type PostgresServer, startPostgres } from "../harness/postgres.ts";
import { VaultClient, vaultEnv } from "../harness/vault.ts";

function person(name: string) {
  return {
    email: `${name}@example.test`,
    password: `${name}-Pa55word-123`,
    name: name[0]!.toUpperCase() + name.slice(1),
  };
}

const q = (path: string) => encodeURIComponent(path);

/** Polls `check` (bounded) until it returns true; for what the file watcher delivers. */
async function eventually(what: string, check: () => Promise<boolean>, ms = 10_000) {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail(`not within ${ms} ms: ${what}`);
}

/** Spellings of "outside the user's folder" that must all be refused without touching a file. */
const TRAVERSALS = [
  "../secret.md",
  "../../etc/passwd",
  "a/../../b.md",
  "..",
  "../",
  "./../x.md",
  "..\\x.md",
  "a\\..\\..\\x.md",
  "/etc/passwd",
  "//server/share/x.md",
  "\\\\server\\share\\x.md",
  "C:\\Windows\\x.md",
  "C:/x.md",
  "%2e%2e/x.md",
  "%2e%2e%2fx.md",
  "%252e%252e%252fx.md",
  "%25252e%25252e/x.md",
  "..%2fx.md",
  "..%5cx.md",
  "%2e./x.md",
  ".%2e/x.md",
  "\uff0e\uff0e/x.md",
  "\uff0e\uff0e\uff0fx.md",
  "..\u2215x.md",
  "a/..\u0000/x.md",
  "x.md\u0000.png",
  ".trash/x.md",
  ".hidden.md",
  "a/.git/config",
  "\u202e../x.md",
  "..\u200b/x.md",
  "CON.md",
  "nul.md",
  "a:b.md",
  "a/b?.md",
  "~/../x.md",
  "....//x.md/..",
];

function suite(backend: "pglite" | "postgres") {
  describe(`vault notes API on ${backend}`, () => {
    let home: string;
    let pg: PostgresServer | undefined;
    let server: RunningBinary;
    let databaseUrl: string | undefined;
    const users: Record<string, { client: VaultClient; id: string; email: string; name: string }> = {};

    const start = async () => {
      server = await startBinary("vault", ["serve"], {
        cwd: home,
        env: vaultEnv(home, { databaseUrl }),
        timeoutMs: 60_000,
      });
      for (const u of Object.values(users)) {
        u.client = await signIn(u.email, person(u.name.toLowerCase()).password);
      }
    };
    const signIn = async (email: string, password: string) => {
      const client = new VaultClient(server.url);
      const res = await client.post("/api/auth/sign-in/email", { email, password });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return client;
    };

    before(async () => {
      home = await mkdtemp(join(tmpdir(), `vault-notes-${backend}-`));
      if (backend === "postgres") {
        pg = await startPostgres();
        databaseUrl = pg.url;
      }
      await start();
      for (const name of ["alice", "bob", "carol"]) {
        const who = person(name);
        const client = new VaultClient(server.url);
        let inviteCode: string | undefined;
        if (users.alice) {
          inviteCode = (await users.alice.client.write("POST", "/api/admin/invites", {})).body.code;
        }
        const res = await client.post("/api/auth/sign-up/email", {
          ...who,
          ...(inviteCode ? { inviteCode } : {}),
        });
        assert.equal(res.status, 201, JSON.stringify(res.body));
        users[name] = { client, id: res.body.user.id, email: who.email, name: who.name };
      }
    });

    after(async () => {
      await server?.stop();
      await pg?.stop();
      await rm(home, { recursive: true, force: true });
    });

    it("creates, reads and updates notes with optimistic versions; a stale write is 409 and loses nothing", async () => {
      const a = users.alice!.client;
      const created = await a.write("POST", "/api/notes", {
        path: "Projects/Plan.md",
        content: "# Plan\nfirst",
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.equal(created.body.path, "Projects/Plan.md");
      const again = await a.write("POST", "/api/notes", { path: "Projects/Plan.md", content: "x" });
      assert.equal(again.status, 409);
      assert.equal(again.body.code, "already_exists");
      const read = await a.get(`/api/notes?path=${q("Projects/Plan.md")}`);
      assert.equal(read.body.content, "# Plan\nfirst");
      assert.equal(read.body.version, created.body.version);

      const v2 = await a.write("PUT", "/api/notes", {
        path: "Projects/Plan.md",
        content: "# Plan\nsecond",
        ifVersion: read.body.version,
      });
      assert.equal(v2.status, 200, JSON.stringify(v2.body));
      assert.notEqual(v2.body.version, read.body.version);
      const stale = await a.write("PUT", "/api/notes", {
        path: "Projects/Plan.md",
        content: "# Plan\nfrom a stale tab",
        ifVersion: read.body.version,
      });
      assert.equal(stale.status, 409);
      assert.equal(stale.body.code, "conflict");
      assert.equal(stale.body.currentVersion, v2.body.version);
      assert.equal((await a.get(`/api/notes?path=${q("Projects/Plan.md")}`)).body.content, "# Plan\nsecond");

      const missing = await a.get(`/api/notes?path=${q("Nope.md")}`);
      assert.equal(missing.status, 404);
      assert.equal(missing.body.code, "not_found");
    });

    it("takes a note of exactly 1 MiB and refuses one byte more, writing nothing", async () => {
      const a = users.alice!.client;
      const mib = 1024 * 1024;
      const ok = await a.write("POST", "/api/notes", { path: "Big.md", content: "a".repeat(mib) });
      assert.equal(ok.status, 201, JSON.stringify(ok.body));
      const big = await a.write("POST", "/api/notes", { path: "Bigger.md", content: "a".repeat(mib + 1) });
      assert.equal(big.status, 413);
      assert.equal(big.body.code, "too_large");
      assert.equal((await a.get(`/api/notes?path=Bigger.md`)).status, 404);
      const up = await a.write("PUT", "/api/notes", { path: "Big.md", content: "é".repeat(mib / 2) + "a" });
      assert.equal(up.status, 413, "bytes of UTF-8 count, not characters");
      assert.equal((await a.get(`/api/notes?path=Big.md`)).body.size, mib);
      assert.equal(
        (await a.delete(`/api/notes?path=Big.md`)).status,
        403,
        "a cookie write needs X-Requested-With",
      );
      assert.equal((await a.write("DELETE", `/api/notes?path=Big.md`)).status, 200);
    });

    it(`refuses ${TRAVERSALS.length} traversal spellings on every route, with no path in the answer`, async () => {
      assert.ok(TRAVERSALS.length >= 30);
      const a = users.alice!.client;
      await writeFile(join(home, "secret.md"), "top secret");
      const before = await readdir(home, { recursive: true });
      for (const bad of TRAVERSALS) {
        const answers = [
          await a.get(`/api/notes?path=${q(bad)}`),
          await a.write("POST", "/api/notes", { path: bad, content: "pwned" }),
          await a.write("PUT", "/api/notes", { path: bad, content: "pwned" }),
          await a.write("DELETE", `/api/notes?path=${q(bad)}`),
          await a.write("POST", "/api/notes/move", { from: "Projects/Plan.md", to: bad }),
          await a.get(`/api/attachments?path=${q(bad)}`),
        ];
        for (const res of answers) {
          assert.ok(
            [400, 404, 415].includes(res.status),
            `${JSON.stringify(bad)}: ${res.status} ${JSON.stringify(res.body)}`,
          );
          const text = JSON.stringify(res.body);
          assert.ok(!text.includes(home) && !text.includes("top secret") && !text.includes("/users/"), text);
        }
      }
      assert.deepEqual(await readdir(home, { recursive: true }), before, "nothing was written anywhere");
      assert.equal(
        (await a.get(`/api/notes?path=${q("Projects/Plan.md")}`)).status,
        200,
        "the move source stayed",
      );
    });

    it("moves notes and folders, rewriting links; backlinks, graph and search follow", async () => {
      const a = users.alice!.client;
      await a.write("POST", "/api/notes", { path: "Ideas.md", content: "# Ideas\nzeppelin harbour #idea" });
      await a.write("POST", "/api/notes", {
        path: "Journal.md",
        content: "see [[Ideas]] and [[Projects/Plan]]",
      });
      let back = await a.get(`/api/backlinks?path=Ideas.md`);
      assert.deepEqual(back.body.backlinks.map((b: { path: string }) => b.path), ["Journal.md"]);

      const moved = await a.write("POST", "/api/notes/move", {
        from: "Ideas.md",
        to: "Archive/Old Ideas.md",
      });
      assert.equal(moved.status, 200, JSON.stringify(moved.body));
      assert.deepEqual(moved.body.rewritten, ["Journal.md"]);
      const journal = await a.get(`/api/notes?path=Journal.md`);
      assert.match(journal.body.content, /\[\[Old Ideas\]\]/);
      back = await a.get(`/api/backlinks?path=${q("Archive/Old Ideas.md")}`);
      assert.deepEqual(back.body.backlinks.map((b: { path: string }) => b.path), ["Journal.md"]);
      const hits = await a.get(`/api/search?q=zeppelin`);
      assert.deepEqual(hits.body.hits.map((h: { path: string }) => h.path), ["Archive/Old Ideas.md"]);

      const folder = await a.write("POST", "/api/notes/move", { from: "Projects", to: "Work/Projects" });
      assert.equal(folder.status, 200, JSON.stringify(folder.body));
      assert.match(
        (await a.get(`/api/notes?path=Journal.md`)).body.content,
        /\[\[Work\/Projects\/Plan\]\]|\[\[Plan\]\]/,
      );
      const graph = await a.get(`/api/graph?center=Journal.md`);
      assert.equal(graph.status, 200, JSON.stringify(graph.body));
      const nodes = graph.body.nodes.map((n: { path: string }) => n.path).sort();
      assert.deepEqual(nodes, ["Archive/Old Ideas.md", "Journal.md", "Work/Projects/Plan.md"]);
      const tree = await a.get(`/api/notes/tree`);
      const paths = tree.body.entries.map((e: { path: string }) => e.path);
      assert.ok(paths.includes("Work/Projects/Plan.md") && !paths.includes("Projects/Plan.md"), paths.join());
      const tags = await a.get(`/api/tags`);
      assert.deepEqual(tags.body.tags, [{ tag: "idea", notes: ["Archive/Old Ideas.md"] }]);
    });

    it("links in any order: written before their target, unresolved until it appears (issue 38)", async () => {
      const b = users.bob!.client;
      const sources = async (path: string) =>
        (await b.get(`/api/backlinks?path=${q(path)}`)).body.backlinks.map((x: { path: string }) => x.path);
      await b.write("POST", "/api/notes", { path: "A.md", content: "See [[B]] and [[Later]]." });
      const unresolved = await b.get(`/api/links/unresolved`);
      assert.equal(unresolved.status, 200, JSON.stringify(unresolved.body));
      assert.deepEqual(unresolved.body.links.map((l: { target: string }) => l.target), ["B", "Later"]);
      await b.write("POST", "/api/notes", { path: "B.md", content: "# B" });
      await b.write("POST", "/api/notes", { path: "C.md", content: "See [[B]]." });
      assert.deepEqual(await sources("B.md"), ["A.md", "C.md"]);
      assert.deepEqual((await b.get(`/api/links?path=A.md`)).body.links, [
        { target: "B.md", kind: "wiki", exists: true },
        { target: "Later", kind: "wiki", exists: false },
      ]);
      // Two folders each with their own Later.md: each folder's notes mean their own.
      await b.write("POST", "/api/notes", { path: "x/Note.md", content: "[[Later]]" });
      await b.write("POST", "/api/notes", { path: "y/Note.md", content: "[[Later]]" });
      await b.write("POST", "/api/notes", { path: "y/Later.md", content: "y" });
      await b.write("POST", "/api/notes", { path: "x/Later.md", content: "x" });
      assert.deepEqual(await sources("x/Later.md"), ["A.md", "x/Note.md"]);
      assert.deepEqual(await sources("y/Later.md"), ["y/Note.md"]);
      // Deleted: what linked to it resolves to the other note of that name.
      assert.equal((await b.write("DELETE", `/api/notes?path=${q("x/Later.md")}`)).status, 200);
      assert.deepEqual(await sources("y/Later.md"), ["A.md", "x/Note.md", "y/Note.md"]);
      const graph = (await b.get(`/api/graph`)).body;
      assert.deepEqual(graph.nodes.filter((n: { exists: boolean }) => !n.exists), []);
    });

    it("deletes to the trash and restores; folders; search syntax and its 400", async () => {
      const a = users.alice!.client;
      const del = await a.write("DELETE", `/api/notes?path=${q("Archive/Old Ideas.md")}`);
      assert.equal(del.status, 200, JSON.stringify(del.body));
      assert.equal((await a.get(`/api/search?q=zeppelin`)).body.total, 0);
      const trash = await a.get(`/api/trash`);
      assert.ok(trash.body.entries.some((e: { id: string }) => e.id === del.body.id));
      const restored = await a.write("POST", `/api/trash/${del.body.id}/restore`);
      assert.equal(restored.status, 200, JSON.stringify(restored.body));
      assert.equal((await a.get(`/api/search?q=zeppelin`)).body.total, 1);

      assert.equal((await a.write("POST", "/api/folders", { path: "Empty" })).status, 201);
      assert.equal((await a.write("POST", "/api/folders", { path: "Empty" })).status, 409);
      assert.equal((await a.write("DELETE", `/api/folders?path=Archive`)).body.code, "not_empty");
      assert.equal((await a.write("DELETE", `/api/folders?path=Empty`)).status, 204);

      assert.equal((await a.get(`/api/search?q=${q("tag:idea harb*")}`)).body.total, 1);
      assert.equal((await a.get(`/api/search?q=${q('"harbour zeppelin"')}`)).body.total, 0);
      for (const bad of ['"unclosed', "a OR", "-only", "x*y"]) {
        const res = await a.get(`/api/search?q=${q(bad)}`);
        assert.equal(res.status, 400, bad);
        assert.equal(res.body.code, "invalid_query");
      }
    });

    it("daily notes from a template, templates, canvases and attachments (SVG without scripts)", async () => {
      const a = users.alice!.client;
      await a.write("POST", "/api/notes", {
        path: "Templates/Daily.md",
        content: "# {{title}}\nday {{date}}",
      });
      assert.deepEqual((await a.get(`/api/templates`)).body.templates, ["Templates/Daily.md"]);
      const daily = await a.write("POST", "/api/daily", {
        date: "2026-03-04",
        folder: "Daily",
        template: "Templates/Daily.md",
      });
      assert.equal(daily.status, 200, JSON.stringify(daily.body));
      assert.equal(daily.body.created, true);
      assert.equal(daily.body.note.path, "Daily/2026-03-04.md");
      assert.equal(daily.body.note.content, "# 2026-03-04\nday 2026-03-04");
      // `..` in the folder or the format is refused, not folded into another folder.
      for (const body of [{ folder: "a/../Daily" }, { format: "[a]/[..]/[..]/YYYY" }, { folder: "../x" }]) {
        const refused = await a.write("POST", "/api/daily", { date: "2026-03-05", ...body });
        assert.equal(refused.status, 400, JSON.stringify(body));
        assert.equal(refused.body.code, "invalid_path");
      }
      assert.ok(
        !(await a.get("/api/notes/tree")).body.entries.some((e: { path: string }) =>
          e.path.includes("2026-03-05")
        ),
      );
      const twice = await a.write("POST", "/api/daily", {
        date: "2026-03-04",
        folder: "Daily",
        template: "Templates/Daily.md",
      });
      assert.equal(twice.body.created, false);
      const fromT = await a.write("POST", "/api/notes/from-template", {
        template: "Templates/Daily.md",
        path: "Meeting.md",
      });
      assert.equal(fromT.status, 201, JSON.stringify(fromT.body));

      const canvas = {
        nodes: [{ id: "n1", type: "file", file: "Journal.md", x: 0, y: 0, width: 200, height: 100 }],
        edges: [],
      };
      const cv = await a.write("POST", "/api/notes", {
        path: "Boards/Map.canvas",
        content: JSON.stringify(canvas),
      });
      assert.equal(cv.status, 201, JSON.stringify(cv.body));
      assert.equal(
        (await a.get(`/api/canvas?path=${q("Boards/Map.canvas")}`)).body.canvas.nodes[0].file,
        "Journal.md",
      );
      const badCanvas = await a.write("POST", "/api/notes", {
        path: "Boards/Bad.canvas",
        content: '{"nodes":[{"id":"x"}]}',
      });
      assert.equal(badCanvas.status, 400);
      assert.equal(badCanvas.body.code, "invalid_canvas");

      const svg = '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>';
      const put = await a.call("PUT", `/api/attachments?path=${q("assets/d.svg")}`, undefined, {
        "X-Requested-With": "x",
        "content-type": "image/svg+xml",
      });
      assert.equal(put.status, 415, "an empty body is no SVG");
      const res = await fetch(`${server.url}/api/attachments?path=${q("assets/d.svg")}`, {
        method: "PUT",
        headers: {
          cookie: a.cookie!,
          origin: server.url,
          "X-Requested-With": "x",
          "content-type": "image/svg+xml",
        },
        body: svg,
      });
      assert.equal(res.status, 201, await res.text());
      const got = await fetch(`${server.url}/api/attachments?path=${q("assets/d.svg")}`, {
        headers: { cookie: a.cookie! },
      });
      assert.equal(got.headers.get("content-type"), "image/svg+xml");
      assert.match(got.headers.get("content-security-policy") ?? "", /script-src 'none'/);
      assert.equal(await got.text(), svg);
      const png = await fetch(`${server.url}/api/attachments?path=${q("assets/fake.png")}`, {
        method: "PUT",
        headers: {
          cookie: a.cookie!,
          origin: server.url,
          "X-Requested-With": "x",
          "content-type": "image/png",
        },
        body: svg,
      });
      assert.equal(png.status, 415);
      assert.equal((await png.json()).code, "type_mismatch");
    });

    it("an edit made on disk shows through the API and search", async () => {
      const a = users.alice!.client;
      const dir = join(home, "notes", "users", users.alice!.id, "Outside");
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, "Disk.md"), "# Disk\nwritten by an editor: quokka");
      await eventually(
        "the disk edit is searchable",
        async () => (await a.get(`/api/search?q=quokka`)).body.total === 1,
      );
      assert.equal(
        (await a.get(`/api/notes?path=${q("Outside/Disk.md")}`)).body.content,
        "# Disk\nwritten by an editor: quokka",
      );
      await writeFile(join(dir, "Disk.md"), "# Disk\nnow about wombats");
      await eventually(
        "the change is searchable",
        async () => (await a.get(`/api/search?q=wombats`)).body.total === 1,
      );
      assert.equal((await a.get(`/api/search?q=quokka`)).body.total, 0);
    });

    it("shares across three users: folder and note shares, requests, read-only, prefix semantics", async () => {
      const { alice, bob, carol } = users as Required<typeof users>;
      const A = alice!.client, B = bob!.client, C = carol!.client;
      await A.write("POST", "/api/notes", {
        path: "Team/Roadmap.md",
        content: "# Roadmap\nnarwhal launch [[Private]]",
      });
      await A.write("POST", "/api/notes", { path: "Teamwork/Secret.md", content: "narwhal secret" });
      await A.write("POST", "/api/notes", { path: "Private.md", content: "narwhal private" });

      // Nothing is visible before a share, and nothing says whether it exists.
      const before = await B.get(`/api/notes?path=${q("Team/Roadmap.md")}&owner=${alice!.id}`);
      assert.equal(before.status, 404);
      assert.equal((await B.get(`/api/search?q=narwhal`)).body.total, 0);

      const unknown = await A.write("POST", "/api/shares", {
        path: "Team/",
        email: "nobody@example.test",
        permission: "read",
      });
      assert.equal(unknown.status, 404);
      const share = await A.write("POST", "/api/shares", {
        path: "Team/",
        email: bob!.email,
        permission: "read-write",
      });
      assert.equal(share.status, 201, JSON.stringify(share.body));

      const tree = await B.get(`/api/notes/tree`);
      assert.equal(tree.body.shared.length, 1);
      assert.equal(tree.body.shared[0].ownerName, "Alice");
      assert.deepEqual(tree.body.shared[0].entries.map((e: { path: string }) => e.path), [
        "Team",
        "Team/Roadmap.md",
      ]);
      const read = await B.get(`/api/notes?path=${q("Team/Roadmap.md")}&owner=${alice!.id}`);
      assert.equal(read.status, 200);
      const wrote = await B.write("PUT", "/api/notes", {
        path: "Team/Roadmap.md",
        content: "# Roadmap\nnarwhal launch [[Private]], edited by Bob",
        ifVersion: read.body.version,
        owner: alice!.id,
      });
      assert.equal(wrote.status, 200, JSON.stringify(wrote.body));
      assert.match((await A.get(`/api/notes?path=${q("Team/Roadmap.md")}`)).body.content, /edited by Bob/);
      const graph = await B.get(`/api/graph?owner=${alice!.id}`);
      assert.deepEqual(graph.body.nodes.map((n: { path: string }) => n.path), ["Team/Roadmap.md"]);
      assert.deepEqual(graph.body.edges, [], "the link to Private.md is not shared");
      assert.equal((await A.get(`/api/graph?center=${q("Team/Roadmap.md")}`)).body.edges.length, 1);
      // "Team/" never covers "Teamwork/", and nothing outside the share.
      assert.equal(
        (await B.get(`/api/notes?path=${q("Teamwork/Secret.md")}&owner=${alice!.id}`)).status,
        404,
      );
      assert.equal((await B.get(`/api/notes?path=Private.md&owner=${alice!.id}`)).status, 404);
      const hits = await B.get(`/api/search?q=narwhal`);
      assert.deepEqual(hits.body.hits.map((h: { path: string; ownerId: string }) => [h.ownerId, h.path]), [
        [alice!.id, "Team/Roadmap.md"],
      ]);
      // Bob's own writes stay in Bob's vault.
      assert.equal((await B.get(`/api/notes?path=${q("Team/Roadmap.md")}`)).status, 404);

      // Carol asks; before approval she sees nothing; Alice approves read only.
      const ask = await C.write("POST", "/api/access-requests", {
        ownerEmail: alice!.email,
        path: "Private.md",
        message: "please",
      });
      assert.equal(ask.status, 201, JSON.stringify(ask.body));
      assert.equal((await C.get(`/api/notes?path=Private.md&owner=${alice!.id}`)).status, 404);
      const incoming = await A.get(`/api/access-requests`);
      assert.deepEqual(incoming.body.incoming.map((r: { id: string; status: string }) => [r.id, r.status]), [[
        ask.body.id,
        "pending",
      ]]);
      assert.equal(
        (await B.write("POST", `/api/access-requests/${ask.body.id}/approve`, { permission: "read" })).status,
        404,
        "only the owner decides",
      );
      const ok = await A.write("POST", `/api/access-requests/${ask.body.id}/approve`, { permission: "read" });
      assert.equal(ok.status, 200, JSON.stringify(ok.body));
      assert.equal(ok.body.status, "approved");
      assert.equal(
        (await C.get(`/api/notes?path=Private.md&owner=${alice!.id}`)).body.content,
        "narwhal private",
      );
      const ro = await C.write("PUT", "/api/notes", {
        path: "Private.md",
        content: "carol was here",
        owner: alice!.id,
      });
      assert.equal(ro.status, 403);
      assert.equal((await A.get(`/api/notes?path=Private.md`)).body.content, "narwhal private");
      assert.deepEqual(
        (await C.get(`/api/search?q=narwhal`)).body.hits.map((h: { path: string }) => h.path),
        ["Private.md"],
      );
      assert.equal((await C.get(`/api/notes?path=${q("Team/Roadmap.md")}&owner=${alice!.id}`)).status, 404);

      // A second request is denied; ending the share takes access away at once.
      const ask2 = await C.write("POST", "/api/access-requests", { ownerEmail: alice!.email, path: "Team/" });
      const denied = await A.write("POST", `/api/access-requests/${ask2.body.id}/deny`);
      assert.equal(denied.body.status, "denied");
      assert.equal((await C.get(`/api/notes?path=${q("Team/Roadmap.md")}&owner=${alice!.id}`)).status, 404);
      const given = (await A.get(`/api/shares`)).body.given as { id: string; granteeEmail: string }[];
      const bobs = given.find((s) => s.granteeEmail === bob!.email)!;
      assert.equal((await A.write("DELETE", `/api/shares/${bobs.id}`)).status, 204);
      assert.equal((await B.get(`/api/notes?path=${q("Team/Roadmap.md")}&owner=${alice!.id}`)).status, 404);
      assert.equal((await B.get(`/api/search?q=narwhal`)).body.total, 0);
    });

    if (backend === "pglite") {
      it("at start, the index catches up with notes written while the server was down, and a crashed write's temporary file goes", async () => {
        await server.stop();
        const dir = join(home, "notes", "users", users.alice!.id);
        await writeFile(join(dir, "Offline.md"), "# Offline\nplatypus");
        await rm(join(dir, "Journal.md"));
        // What a write killed between its temporary file and the rename leaves (atomic_write.ts), an hour
        // ago; and a user's own hidden file that only looks alike.
        await mkdir(join(dir, "Projects"), { recursive: true });
        const leftover = join(dir, "Projects", ".Plan.md.0123456789ab.tmp");
        await writeFile(leftover, "half a no");
        await writeFile(join(dir, ".mine.tmp"), "mine");
        const hourAgo = Date.now() / 1000 - 3600;
        await utimes(leftover, hourAgo, hourAgo);
        await utimes(join(dir, ".mine.tmp"), hourAgo, hourAgo);
        await start();
        await eventually(
          "the leftover removed",
          async () => !(await readdir(join(dir, "Projects"))).includes(".Plan.md.0123456789ab.tmp"),
        );
        assert.ok((await readdir(dir)).includes(".mine.tmp"), "a file the vault did not make stays");
        const a = users.alice!.client;
        assert.equal((await a.get(`/api/search?q=platypus`)).body.total, 1);
        assert.equal(
          (await a.get(`/api/backlinks?path=${q("Archive/Old Ideas.md")}`)).body.backlinks.length,
          0,
        );
        // Written while the server was down, before its target: resolved by the catch-up.
        assert.deepEqual(
          (await users.bob!.client.get(`/api/backlinks?path=B.md`)).body.backlinks.map((
            x: { path: string },
          ) => x.path),
          ["A.md", "C.md"],
        );
      });
    }
  });
}

suite("pglite");
suite("postgres");
