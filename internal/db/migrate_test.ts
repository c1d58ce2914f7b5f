import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type Kysely, sql } from "kysely";
import { startPostgres } from "../../test/harness/postgres.ts";
import { migrate, type Migration, migrationStatus } from "./migrate.ts";
import { type Database, openDatabase } from "./open_database.ts";
import { freshDataDir, removeDataDirs } from "./_test_data_dir.ts";

let postgres: Awaited<ReturnType<typeof startPostgres>> | undefined;

before(async () => {
  postgres = await startPostgres();
});

after(async () => {
  await postgres?.stop();
  await removeDataDirs();
});

const backends = {
  pglite: async () => await openDatabase({ dataDir: await freshDataDir() }),
  postgres: async () => await openDatabase({ url: await postgres!.newDatabase() }),
};

/** A migration that creates a table, so tests can see whether it ran. */
function createTable(name: string): Migration {
  return {
    async up(db) {
      await db.schema.createTable(name).addColumn("id", "integer").execute();
    },
  };
}

// deno-lint-ignore no-explicit-any
async function tables(db: Kysely<any>): Promise<string[]> {
  const all = await db.introspection.getTables({ withInternalKyselyTables: true });
  return all.map((t) => t.name).sort();
}

const migrations = {
  "0002_second": createTable("second"),
  "0001_first": createTable("first"),
};

for (const [backend, open] of Object.entries(backends)) {
  describe(`migrate on ${backend}`, () => {
    let database: Database<unknown>;
    // deno-lint-ignore no-explicit-any
    const fresh = async (): Promise<Kysely<any>> => {
      database ??= await open();
      await sql`drop schema public cascade`.execute(database.db);
      await sql`create schema public`.execute(database.db);
      return database.db;
    };

    after(async () => {
      await database?.close();
    });

    test("applies pending migrations in name order, once, and reports their status", async () => {
      const db = await fresh();
      assert.deepEqual(await migrationStatus(db, migrations), [
        { name: "0001_first", appliedAt: null },
        { name: "0002_second", appliedAt: null },
      ]);
      const startedAt = Date.now();
      assert.deepEqual(await migrate(db, migrations), { applied: ["0001_first", "0002_second"] });
      assert.deepEqual(await tables(db), ["first", "schema_migrations", "schema_migrations_lock", "second"]);
      assert.deepEqual(await migrate(db, migrations), { applied: [] });

      const status = await migrationStatus(db, { ...migrations, "0003_third": createTable("third") });
      assert.deepEqual(status.map((s) => s.name), ["0001_first", "0002_second", "0003_third"]);
      for (const { appliedAt } of status.slice(0, 2)) {
        assert.ok(appliedAt instanceof Date && appliedAt.getTime() >= startedAt - 1000, String(appliedAt));
      }
      assert.equal(status[2]?.appliedAt, null);
    });

    test("refuses a badly named migration before touching the database", async () => {
      const db = await fresh();
      for (const name of ["1_short", "0001-dash", "0001_Upper", "0001_", "first"]) {
        await assert.rejects(migrate(db, { ...migrations, [name]: createTable("bad") }), {
          message: new RegExp(`^invalid migration name ${name}: `),
        });
      }
      await assert.rejects(
        migrationStatus(db, { "0001 first": createTable("bad") }),
        /invalid migration name/,
      );
      assert.deepEqual(await tables(db), []);
    });

    test("names a failing migration and leaves no trace of the run", async () => {
      const db = await fresh();
      const failing: Migration = {
        async up(db) {
          await db.schema.createTable("half_done").addColumn("id", "integer").execute();
          await sql`select 1 / 0`.execute(db);
        },
      };
      await assert.rejects(migrate(db, { ...migrations, "0003_failing": failing }), {
        message: "migration 0003_failing failed: division by zero",
      });
      assert.deepEqual((await migrationStatus(db, migrations)).map((s) => s.appliedAt), [null, null]);
      assert.deepEqual(await tables(db), ["schema_migrations", "schema_migrations_lock"]);
      // The fixed release applies everything.
      assert.deepEqual(await migrate(db, migrations), { applied: ["0001_first", "0002_second"] });
    });

    test("refuses to run against a database migrated by a newer release", async () => {
      const db = await fresh();
      await migrate(db, migrations);
      await assert.rejects(migrate(db, { "0001_first": migrations["0001_first"] }), {
        message: /^migrations failed: .*0002_second is missing/,
      });
    });
  });
}

describe("migrate on one PostgreSQL from two servers at once", () => {
  test("applies each migration exactly once", async () => {
    const url = await postgres!.newDatabase();
    const servers = await Promise.all([openDatabase({ url }), openDatabase({ url })]);
    try {
      // Each migration records its run; the sleep keeps the first run busy while the second waits.
      const recording = (name: string): Migration => ({
        async up(db) {
          await sql`create table if not exists runs (name text not null)`.execute(db);
          await sql`insert into runs values (${name}), (${"x"}) returning pg_sleep(0.05)`.execute(db);
          await sql`delete from runs where name = 'x'`.execute(db);
        },
      });
      const all = {
        "0001_a": recording("0001_a"),
        "0002_b": recording("0002_b"),
        "0003_c": recording("0003_c"),
      };
      const results = await Promise.all(servers.map((s) => migrate(s.db, all)));
      assert.deepEqual(results.flatMap((r) => r.applied).sort(), ["0001_a", "0002_b", "0003_c"]);
      const db = servers[0]!.db;
      const { rows } = await sql<{ name: string }>`select name from runs order by name`.execute(db);
      assert.deepEqual(rows.map((r) => r.name), ["0001_a", "0002_b", "0003_c"]);
    } finally {
      await Promise.all(servers.map((s) => s.close()));
    }
  });
});
