import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { sql } from "kysely";
import { startPostgres } from "../../test/harness/postgres.ts";
import { freshDataDir, removeDataDirs } from "./_test_data_dir.ts";
import { announce } from "./notices.ts";
import { type Database, openDatabase } from "./open_database.ts";

/** Resolves with the next payload the handlers hear (or rejects after 5 s). */
function recorder() {
  const heard: string[] = [];
  let listening = 0;
  let wake = () => {};
  return {
    handlers: {
      notice: (p: string) => {
        heard.push(p);
        wake();
      },
      listening: () => void listening++,
    },
    heard,
    get listening() {
      return listening;
    },
    async next(count: number): Promise<string[]> {
      const deadline = Date.now() + 5_000;
      while (heard.length < count) {
        if (Date.now() > deadline) assert.fail(`heard ${JSON.stringify(heard)}, waited for ${count}`);
        await new Promise<void>((r) => (wake = r, setTimeout(r, 20)));
      }
      return heard;
    },
  };
}

async function listensAndAnnounces(database: Database<unknown>) {
  const rec = recorder();
  const stop = await database.listen!("test_notices", rec.handlers);
  assert.equal(rec.listening, 1, "listening() once listening has started");
  announce(database.db, "test_notices", "local");
  assert.deepEqual(rec.heard, ["local"], "announce is heard at once, in process");
  announce(database.db, "other_channel", "not for us");
  await sql`select pg_notify('test_notices', 'from sql')`.execute(database.db);
  assert.deepEqual(await rec.next(2), ["local", "from sql"]);
  await stop();
  await sql`select pg_notify('test_notices', 'after stop')`.execute(database.db);
  announce(database.db, "test_notices", "after stop");
  await new Promise((r) => setTimeout(r, 100));
  assert.deepEqual(rec.heard, ["local", "from sql"], "nothing after stop");
}

describe("database notices (LISTEN/NOTIFY and announce)", () => {
  after(removeDataDirs);

  it("PGlite: a NOTIFY and an announce reach the listener; nothing after it stops", async () => {
    const database = await openDatabase({ dataDir: await freshDataDir() });
    try {
      await listensAndAnnounces(database);
    } finally {
      await database.close();
    }
  });

  it("PostgreSQL: the same, through a listening connection of its own", async () => {
    const pg = await startPostgres();
    const database = await openDatabase({ url: pg.url });
    try {
      await listensAndAnnounces(database);
    } finally {
      await database.close();
      await pg.stop();
    }
  });
});
