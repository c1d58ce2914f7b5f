/**
 * Black-box: memsvc export/import, backup/restore and migrate on dist/memsvc, on the embedded database
 * and on PostgreSQL 15. Each round trip is checked by what a user can compare: the export (or backup)
 * of the target equals the one of the source, and a server on the target answers searches the same.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { runBinary, type RunningBinary, startBinary } from "../harness/binary.ts";
import { Client } from "../harness/http_client.ts";
import { type PostgresServer, startPostgres } from "../harness/postgres.ts";

const QUERIES = ["deploy pipeline canary", "database backups nightly", "on-call rotation handbook"];
const CONTENTS = [
  "The deploy pipeline runs a canary stage for ten minutes before the full rollout.",
  "The deploy pipeline canary stage watches the error rate and rolls back on a spike.",
  "Database backups run nightly at 02:00 UTC and are kept for thirty days.",
  "Nightly database backups are verified weekly by restoring into a scratch cluster.",
  "The on-call rotation handbook lives in the ops wiki under Runbooks.",
  "Ada prefers tabs over spaces in the Go services.",
];

let root: string;
let pg: PostgresServer;

before(async () => {
  root = await mkdtemp(join(tmpdir(), "memsvc-portability-"));
  pg = await startPostgres();
});
after(async () => {
  await pg?.stop();
  await rm(root, { recursive: true, force: true });
});

let dirs = 0;
const newDir = () => join(root, `d${++dirs}`);

function env(database: { dataDir?: string; url?: string }): Record<string, string> {
  const e: Record<string, string> = {
    HOME: root,
    MEMSVC_PORT: "0",
    MEMSVC_LOG_FORMAT: "json",
    MEMSVC_AUTH_MODE: "none",
  };
  if (database.url) e.MEMSVC_DATABASE_URL = database.url;
  else e.MEMSVC_DATA_DIR = database.dataDir!;
  return e;
}

async function memsvc(args: string[], database: { dataDir?: string; url?: string }, extra = {}) {
  const r = await runBinary("memsvc", args, {
    env: { ...env(database), ...extra },
    cwd: root,
    timeoutMs: 60_000,
  });
  return r;
}

async function ok(args: string[], database: { dataDir?: string; url?: string }, extra = {}) {
  const r = await memsvc(args, database, extra);
  assert.equal(r.code, 0, `memsvc ${args.join(" ")} failed:\n${r.stderr}`);
  return r;
}

/** Fills a server with projects, entries in several scopes and namespaces (edges come from co-occurrence). */
async function seed(server: RunningBinary): Promise<void> {
  const c = new Client(server.url);
  assert.equal((await c.post("/v1/projects", { name: "Infra" })).status, 201);
  for (const [i, content] of CONTENTS.entries()) {
    const body: Record<string, unknown> = {
      content,
      force: true,
      metadata: { n: i, tags: ["t", String(i)] },
    };
    if (i % 2 === 0) body.project = "Infra";
    if (i === 5) body.namespace = "prefs";
    if (i === 3) Object.assign(body, { source_type: "user", captured_from: "test", confidence: 0.8 });
    const r = await c.post("/v1/remember", body);
    assert.equal(r.status, 201, JSON.stringify(r.body));
  }
}

async function searches(server: RunningBinary): Promise<string[][]> {
  const c = new Client(server.url);
  const out: string[][] = [];
  for (const query of QUERIES) {
    for (const project of [undefined, "Infra"]) {
      const r = await c.post("/v1/search", project ? { query, project } : { query });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      out.push(r.body.results.map((x: { id: string; content: string }) => `${x.id} ${x.content}`));
    }
  }
  return out;
}

/** An export's lines without the header's exportedAt. */
function exportBody(text: string): string[] {
  const lines = text.trim().split("\n");
  const header = JSON.parse(lines[0]!);
  assert.equal(header.type, "memsvc-export");
  assert.equal(header.version, 1);
  return lines.slice(1);
}

/** A backup's row lines (sorted) and its end line. */
async function backupRows(file: string): Promise<{ rows: string[]; counts: Record<string, number> }> {
  const lines = gunzipSync(await readFile(file)).toString("utf8").trim().split("\n");
  const header = JSON.parse(lines[0]!);
  assert.equal(header.type, "memsvc-backup");
  assert.ok(header.migrations.includes("0003_memory"));
  const end = JSON.parse(lines.at(-1)!);
  assert.equal(end.type, "end");
  return { rows: lines.slice(1, -1).sort(), counts: end.counts };
}

describe("memsvc export, import, backup, restore and migrate", () => {
  const source = { dataDir: newDir() };
  let before: string[][];
  let exported: string[];

  it("seeds an embedded server; export is refused while it runs; backup --url works through it", async () => {
    const server = await startBinary("memsvc", ["serve"], { env: env(source), cwd: root });
    try {
      await seed(server);
      before = await searches(server);
      assert.ok(before.some((r) => r.length > 0));
      const refused = await memsvc(["export", "--out", join(root, "x.jsonl")], source);
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /in use by process .*stop `memsvc serve`/);
      const direct = await memsvc(["backup", join(root, "x.jsonl.gz")], source);
      assert.equal(direct.code, 1);
      assert.match(direct.stderr, /--url/);
      await ok(["backup", join(root, "running.jsonl.gz"), "--url", server.url], source);
    } finally {
      await server.stop();
    }
    const { counts } = await backupRows(join(root, "running.jsonl.gz"));
    assert.equal(counts.memory_entries, CONTENTS.length);
    assert.equal(counts.memory_vectors, CONTENTS.length);
  });

  it("exports JSONL without secrets or vectors", async () => {
    const r = await ok(["export", "--out", join(root, "source.jsonl")], source);
    assert.match(r.stderr, /exported \d+ users, 1 projects, 6 entries/);
    const text = await readFile(join(root, "source.jsonl"), "utf8");
    exported = exportBody(text);
    const records = exported.map((l) => JSON.parse(l));
    assert.deepEqual(
      [...new Set(records.map((r) => r.type))].sort(),
      ["edge", "entry", "project", "user"],
    );
    // Entries sharing a scope are linked by co_occurs edges at write time; those must travel too.
    assert.ok(records.filter((r) => r.type === "edge").length >= 2);
    const entry = records.find((r) => r.type === "entry" && r.source_type === "user");
    assert.equal(entry.captured_from, "test");
    assert.equal(entry.metadata.n, 3);
    assert.match(entry.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    assert.doesNotMatch(text, /vector|password|token/i);
    // One user to stdout.
    const one = await ok(["export", "--user", "operator@localhost"], source);
    assert.deepEqual(exportBody(one.stdout), exported);
    const none = await memsvc(["export", "--user", "nobody@example.test"], source);
    assert.equal(none.code, 1);
    assert.match(none.stderr, /no user with email nobody@example.test/);
  });

  for (const backend of ["embedded", "postgres"] as const) {
    it(`imports into a fresh ${backend} database: equal export, second import changes nothing`, async () => {
      const target = backend === "embedded" ? { dataDir: newDir() } : { url: await pg.newDatabase() };
      const file = join(root, "source.jsonl");
      const refused = await memsvc(["import", file], target);
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /operator@localhost not found.*--create-users/);
      const first = await ok(["import", file, "--create-users"], target);
      assert.match(first.stderr, /6 new entries/);
      const again = await ok(["import", file, "--create-users"], target);
      assert.match(
        again.stderr,
        /0 new entries \(6 already present\), 0 new edges, 0 new projects, 0 new users/,
      );
      const r = await ok(["export"], target);
      assert.deepEqual(exportBody(r.stdout), exported);
    });
  }

  it("restores a backup taken through a running embedded server into a fresh database, every row equal", async () => {
    const target = { dataDir: newDir() };
    await ok(["restore", join(root, "running.jsonl.gz")], target);
    const refused = await memsvc(["restore", join(root, "running.jsonl.gz")], target);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /not empty.*--force/);
    await ok(["restore", join(root, "running.jsonl.gz"), "--force"], target);
    await ok(["backup", join(root, "restored.jsonl.gz")], target);
    const a = await backupRows(join(root, "running.jsonl.gz"));
    const b = await backupRows(join(root, "restored.jsonl.gz"));
    assert.deepEqual(b.counts, a.counts);
    assert.deepEqual(b.rows, a.rows);
    assert.ok(
      a.rows.some((l) => l.includes('"table":"memory_vectors"') && /"vector":"[A-Za-z0-9+/]{40,}/.test(l)),
    );
    // New writes after a restore get fresh vector sequence numbers.
    const server = await startBinary("memsvc", ["serve"], { env: env(target), cwd: root });
    try {
      const c = new Client(server.url);
      const r = await c.post("/v1/remember", {
        content: "A brand new fact after the restore of the backup.",
        force: true,
      });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      assert.equal((await c.get(`/v1/memories/${r.body.id}`)).status, 200);
    } finally {
      await server.stop();
    }
  });

  it("backs up PostgreSQL while a server writes, and restores it into another database", async () => {
    const db = { url: await pg.newDatabase() };
    const server = await startBinary("memsvc", ["serve"], { env: env(db), cwd: root });
    let stop = false;
    const writer = (async () => {
      const c = new Client(server.url);
      for (let i = 0; !stop; i++) {
        await c.post("/v1/remember", {
          content: `Concurrent write ${i} during the backup run ${Date.now()}.`,
          force: true,
        });
      }
    })();
    try {
      await seed(server);
      await ok(["backup", join(root, "pg.jsonl.gz")], db);
    } finally {
      stop = true;
      await writer;
      await server.stop();
    }
    const target = { url: await pg.newDatabase() };
    await ok(["restore", join(root, "pg.jsonl.gz")], target);
    await ok(["backup", join(root, "pg-restored.jsonl.gz")], target);
    const a = await backupRows(join(root, "pg.jsonl.gz"));
    const b = await backupRows(join(root, "pg-restored.jsonl.gz"));
    assert.deepEqual(b.counts, a.counts);
    assert.deepEqual(b.rows, a.rows);
    // A consistent snapshot: no vector without its entry (a backup that read the tables at different
    // moments would hold vectors of entries written after it read memory_entries). An entry may lack
    // its vector: remember commits the entry before embedding it, and entries wait up to 50 ms for
    // their vector batch (vector_backlog.ts): at most the ones queued (fewer than a batch, 128) plus
    // a batch being stored.
    const rowsOf = (table: string) =>
      a.rows.map((line) => JSON.parse(line)).filter((r) => r.table === table).map((r) => r.row);
    const entryIds = new Set(rowsOf("memory_entries").map((r) => r.id));
    for (const v of rowsOf("memory_vectors")) assert.ok(entryIds.has(v.entry_id), `vector of ${v.entry_id}`);
    const missing = a.counts.memory_entries! - a.counts.memory_vectors!;
    assert.ok(missing >= 0 && missing <= 2 * 128, `${missing} entries without a vector`);
  });

  it("migrate --to PostgreSQL: a server on the target answers searches as before", async () => {
    const url = await pg.newDatabase();
    const r = await ok(["migrate", "--to", url], source);
    assert.match(r.stderr, /memory_entries: 6 rows/);
    const again = await memsvc(["migrate", "--to", url], source);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /not empty/);
    const server = await startBinary("memsvc", ["serve"], { env: env({ url }), cwd: root });
    try {
      assert.deepEqual(await searches(server), before);
    } finally {
      await server.stop();
    }
  });
});
