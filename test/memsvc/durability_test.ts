/**
 * Black-box: an acknowledged write survives `kill -9`. 32 writers stream POST /v1/remember into
 * dist/memsvc for about two seconds (so remembers share group commits), the server is killed with
 * SIGKILL while writes are in flight, and a new server on the same data must return every entry
 * whose 201 arrived, with its content. Vectors are built after the commit: the restarted server
 * must also embed the entries the killed one had not, so vector search finds every one of them.
 * Run on the embedded database (PGlite) and on PostgreSQL 15.
 */
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RunningBinary, startBinary } from "../harness/binary.ts";
import { Client } from "../harness/http_client.ts";
import { type PostgresServer, startPostgres } from "../harness/postgres.ts";

const WRITERS = 32;
const WRITE_MS = 2_000;

interface Acknowledged {
  id: string;
  content: string;
}

function serverEnv(home: string, database: Record<string, string>): Record<string, string> {
  return {
    HOME: home,
    MEMSVC_PORT: "0",
    MEMSVC_LOG_FORMAT: "json",
    MEMSVC_AUTH_MODE: "none",
    MEMSVC_DECAY_INTERVAL_MS: "3600000",
    ...database,
  };
}

/**
 * Writes until the server stops answering; kills it with SIGKILL after WRITE_MS while the writers
 * are still sending. Returns the writes whose 201 arrived.
 */
async function writeThenKill(server: RunningBinary): Promise<Acknowledged[]> {
  const client = new Client(server.url);
  const acknowledged: Acknowledged[] = [];
  let stopped = false;
  let attempts = 0;
  const writer = async (w: number) => {
    for (let i = 0; !stopped; i++) {
      const content = `Durability probe ${w}-${i}: the nightly backup of shard ${w} finished step ${i} ` +
        `at ${new Date().toISOString()} (${crypto.randomUUID()}).`;
      attempts++;
      try {
        const r = await client.post("/v1/remember", { content, force: true });
        if (r.status === 201) acknowledged.push({ id: r.body.id, content });
        else if (!stopped) assert.fail(`POST /v1/remember answered ${r.status}: ${JSON.stringify(r.body)}`);
      } catch {
        // The connection died with the server: that write was not acknowledged.
        stopped = true;
      }
    }
  };
  const writers = Array.from({ length: WRITERS }, (_, w) => writer(w));
  await new Promise((r) => setTimeout(r, WRITE_MS));
  const writesBeforeKill = acknowledged.length;
  const code = await server.stop("SIGKILL");
  stopped = true;
  await Promise.all(writers);
  assert.equal(code, null, "the server was killed, it did not exit on its own");
  assert.ok(writesBeforeKill >= 20, `only ${writesBeforeKill} writes were acknowledged in ${WRITE_MS} ms`);
  assert.ok(attempts > acknowledged.length || acknowledged.length > 0);
  return acknowledged;
}

async function assertAllPresent(server: RunningBinary, acknowledged: Acknowledged[]): Promise<void> {
  const client = new Client(server.url);
  const missing: string[] = [];
  for (let i = 0; i < acknowledged.length; i += 16) {
    await Promise.all(
      acknowledged.slice(i, i + 16).map(async ({ id, content }) => {
        const r = await client.get(`/v1/memories/${id}`);
        if (r.status !== 200) missing.push(`${id} (${r.status})`);
        else assert.equal(r.body.content, content, id);
      }),
    );
  }
  assert.deepEqual(missing, [], `${missing.length} of ${acknowledged.length} acknowledged writes were lost`);
}

/**
 * The last writes before the kill are the ones most likely to have had no vector yet: vector search
 * (its exact text as the query) must find each, once the restarted server has embedded what it found
 * missing.
 */
async function assertVectorsRebuilt(server: RunningBinary, acknowledged: Acknowledged[]): Promise<void> {
  const client = new Client(server.url);
  const deadline = Date.now() + 30_000;
  for (const { id, content } of acknowledged.slice(-40)) {
    for (;;) {
      const r = await client.post("/v1/search", { query: content, mode: "vector", limit: 3 });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      if ((r.body.results as { id: string }[]).some((x) => x.id === id)) break;
      assert.ok(Date.now() < deadline, `vector search never found ${id} after the restart`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

describe("memsvc durability across kill -9", () => {
  const cleanup: (() => Promise<void>)[] = [];
  after(async () => {
    for (const fn of cleanup.reverse()) await fn().catch(() => {});
  });

  async function home(): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), "memsvc-durability-"));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    return dir;
  }

  async function roundTrip(env: Record<string, string>): Promise<number> {
    let server = await startBinary("memsvc", ["serve"], { cwd: env.HOME, env });
    cleanup.push(() => server.stop("SIGKILL").then(() => {}));
    let acknowledged: Acknowledged[];
    try {
      acknowledged = await writeThenKill(server);
    } catch (err) {
      console.error(server.output());
      throw err;
    }
    server = await startBinary("memsvc", ["serve"], { cwd: env.HOME, env });
    cleanup.push(() => server.stop().then(() => {}));
    try {
      await assertAllPresent(server, acknowledged);
      await assertVectorsRebuilt(server, acknowledged);
    } catch (err) {
      console.error(server.output());
      throw err;
    }
    await server.stop();
    return acknowledged.length;
  }

  it("keeps every acknowledged write on the embedded database", async () => {
    const dir = await home();
    const count = await roundTrip(serverEnv(dir, { MEMSVC_DATA_DIR: join(dir, "data") }));
    assert.ok(count > 0);
  });

  it("keeps every acknowledged write on PostgreSQL 15", async () => {
    const dir = await home();
    const pg: PostgresServer = await startPostgres();
    cleanup.push(() => pg.stop());
    const count = await roundTrip(serverEnv(dir, { MEMSVC_DATABASE_URL: pg.url }));
    assert.ok(count > 0);
  });
});
