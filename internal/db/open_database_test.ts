import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { sql } from "kysely";
import { startPostgres } from "../../test/harness/postgres.ts";
import { type Database, openDatabase } from "./open_database.ts";
import { freshDataDir, removeDataDirs, tempDir } from "./_test_data_dir.ts";

interface TestDB {
  item: { name: string };
  doc: { id: number; body: unknown };
}

let postgres: Awaited<ReturnType<typeof startPostgres>> | undefined;

before(async () => {
  postgres = await startPostgres();
});

after(async () => {
  await postgres?.stop();
  await removeDataDirs();
});

const backends = {
  pglite: async () => await openDatabase<TestDB>({ dataDir: await freshDataDir() }),
  postgres: async () => await openDatabase<TestDB>({ url: await postgres!.newDatabase() }),
};

for (const [backend, open] of Object.entries(backends)) {
  describe(`openDatabase on ${backend}`, () => {
    let database: Database<TestDB>;

    before(async () => {
      database = await open();
      await database.db.schema.createTable("item").addColumn("name", "text", (c) => c.primaryKey()).execute();
      await database.db.schema.createTable("doc")
        .addColumn("id", "integer", (c) => c.primaryKey())
        .addColumn("body", "jsonb", (c) => c.notNull())
        .execute();
    });

    after(async () => {
      await database?.close();
    });

    test("reports its backend and runs queries", async () => {
      assert.equal(database.backend, backend);
      const { rows } = await sql<{ answer: number }>`select 6 * 7 as answer`.execute(database.db);
      assert.deepEqual(rows, [{ answer: 42 }]);
    });

    test("commits a transaction and rolls one back when it throws", async () => {
      const { db } = database;
      await db.transaction().execute((trx) => trx.insertInto("item").values({ name: "kept" }).execute());
      await assert.rejects(
        db.transaction().execute(async (trx) => {
          await trx.insertInto("item").values({ name: "dropped" }).execute();
          throw new Error("boom");
        }),
        { message: "boom" },
      );
      const rows = await db.selectFrom("item").select("name").execute();
      assert.deepEqual(rows, [{ name: "kept" }]);
    });

    test("returns the same JavaScript values as the other backend", async () => {
      const { db } = database;
      // A bare boolean, Date or bigint fails on PostgreSQL: postgres.js sends it typed as bool, timestamptz, int8.
      const bodies = [{ a: 1, b: true, c: null }, "a string", '{"looks":"like json"}', [1, "two"], 7];
      await db.insertInto("doc").values(bodies.map((body, id) => ({ id, body }))).execute();
      const rows = await db.selectFrom("doc").select("body").orderBy("id").execute();
      assert.deepEqual(rows.map((r) => r.body), bodies);

      const { rows: [values] } = await sql<Record<string, unknown>>`select
        9007199254740993::int8 as big, 2::int8 as small, count(*) as count, 1.50::numeric as num,
        3::int4 as int, 0.5::float8 as float, true as bool,
        '2024-01-02T03:04:05Z'::timestamptz as at, array['x', 'y'] as texts`.execute(db);
      assert.deepEqual({ ...values }, {
        big: "9007199254740993",
        small: "2",
        count: "1",
        num: "1.50",
        int: 3,
        float: 0.5,
        bool: true,
        at: new Date("2024-01-02T03:04:05Z"),
        texts: ["x", "y"],
      });
    });

    test("close is idempotent", async () => {
      const other = await open();
      await Promise.all([other.close(), other.close()]);
      await other.close();
      await assert.rejects(sql`select 1`.execute(other.db));
    });
  });
}

describe("openDatabase on a PGlite data directory", () => {
  test("creates a missing data directory with mode 0700 and locks it while open", async () => {
    const dataDir = join(await tempDir(), "nested", "data");
    const database = await openDatabase({ dataDir });
    try {
      assert.equal((await stat(dataDir)).mode & 0o777, 0o700);
      assert.equal(await readFile(join(dataDir, ".lock"), "utf8"), `${process.pid}\n`);
      await assert.rejects(openDatabase({ dataDir }), {
        message: new RegExp(`^data directory ${dataDir} is in use by process ${process.pid}`),
      });
    } finally {
      await database.close();
    }
    assert.equal(existsSync(join(dataDir, ".lock")), false, "close releases the lock");
  });

  test("keeps data across close and reopen", async () => {
    const dataDir = await freshDataDir();
    const first = await openDatabase<TestDB>({ dataDir });
    await first.db.schema.createTable("item").addColumn("name", "text").execute();
    await first.db.insertInto("item").values({ name: "persisted" }).execute();
    await first.close();
    const second = await openDatabase<TestDB>({ dataDir });
    try {
      assert.deepEqual(await second.db.selectFrom("item").select("name").execute(), [{ name: "persisted" }]);
    } finally {
      await second.close();
    }
  });

  test("takes over the lock of a process that died", async () => {
    const dataDir = await freshDataDir();
    await writeFile(join(dataDir, ".lock"), "2147483646\n");
    const database = await openDatabase({ dataDir });
    try {
      assert.equal(await readFile(join(dataDir, ".lock"), "utf8"), `${process.pid}\n`);
    } finally {
      await database.close();
    }
  });
});

describe("openDatabase options", () => {
  test("refuses a url scheme it cannot serve without printing the password", async () => {
    for (const url of ["mysql://app:hunter2@db.example/app", "app:hunter2@db.example"]) {
      const error = await openDatabase({ url }).then(() => undefined, (err: Error) => err);
      assert.ok(error instanceof Error, `${url} must be refused`);
      assert.match(error.message, /^unsupported database url .*use postgres:\/\/ or postgresql:\/\//);
      assert.doesNotMatch(error.message, /hunter2/);
    }
  });

  test("names the server it cannot reach without printing the password", async () => {
    const error = await openDatabase({ url: "postgresql://app:hunter2@127.0.0.1:1/app" })
      .then(() => undefined, (err: Error) => err);
    assert.ok(error instanceof Error);
    assert.match(
      error.message,
      /^cannot connect to PostgreSQL at postgresql:\/\/\*\*\*@127\.0\.0\.1:1\/app: /,
    );
    assert.doesNotMatch(error.message, /hunter2/);
  });

  test("requires a data directory without a url", async () => {
    await assert.rejects(openDatabase({}), { message: /data directory is required/ });
    await assert.rejects(openDatabase({ url: "" }), { message: /data directory is required/ });
  });
});
