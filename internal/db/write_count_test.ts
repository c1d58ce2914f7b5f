import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { sql } from "kysely";
import { freshDataDir, removeDataDirs } from "./_test_data_dir.ts";
import { type Database, openDatabase } from "./open_database.ts";
import { KEEPS_COPIES, mayWrite, unmarkedWriteCount, writeCount } from "./write_count.ts";

describe("mayWrite", () => {
  it("judges only plain SELECTs unable to write", () => {
    for (
      const s of [
        `select "id", "updated_at" from "memory_entries" where "id" in ($1, $2)`,
        "  SELECT (select last_value from memory_change_seq)::text as entries",
      ]
    ) assert.equal(mayWrite(s), false, s);
    for (
      const s of [
        "insert into t (a) values ($1)",
        "update t set a = 1",
        "delete from t",
        "with x as (delete from t returning *) select * from x",
        "select nextval('s')",
        "select setval('s', 1)",
        "select pg_notify('c', 'p')",
        "select * into t2 from t",
        "select * from t order by id for update",
        "select * from t for no key update",
        "select * from t for share",
        "/* a comment */ select 1",
        "(select 1) union (select 2)",
        "begin",
        "savepoint a",
      ]
    ) assert.equal(mayWrite(s), true, s);
  });
});

describe("writeCount on the embedded database", () => {
  let database: Database<{ t: { id: number } }>;
  before(async () => {
    database = await openDatabase({ dataDir: await freshDataDir() });
    await sql`create table t (id int)`.execute(database.db);
  });
  after(async () => {
    await database.close();
    await removeDataDirs();
  });

  it("moves with every statement that may write and stands still for reads", async () => {
    const { db } = database;
    const start = writeCount(db)!;
    assert.equal(typeof start, "number");
    await db.selectFrom("t").selectAll().execute();
    assert.equal(writeCount(db), start, "a read");
    await db.insertInto("t").values({ id: 1 }).execute();
    assert.equal(writeCount(db), start + 1, "an insert");
    await db.transaction().execute(async (trx) => {
      assert.equal(writeCount(trx), undefined, "a transaction's handle has none: callers read");
      await trx.updateTable("t").set({ id: 2 }).execute();
    });
    assert.equal(writeCount(db), start + 2, "a write inside a transaction counts on the database");
    await sql`create sequence s`.execute(db);
    await sql`select nextval('s')`.execute(db);
    assert.equal(writeCount(db), start + 4, "DDL and a sequence call");
  });

  it("leaves statements marked KEEPS_COPIES out of the unmarked count", async () => {
    const { db } = database;
    const [all, unmarked] = [writeCount(db)!, unmarkedWriteCount(db)!];
    await sql`${sql.raw(KEEPS_COPIES)}insert into t (id) values (3)`.execute(db);
    assert.deepEqual([writeCount(db), unmarkedWriteCount(db)], [all + 1, unmarked], "a marked insert");
    await sql`insert into t (id) values (4) /* keeps copies */`.execute(db);
    assert.deepEqual(
      [writeCount(db), unmarkedWriteCount(db)],
      [all + 2, unmarked + 1],
      "only an opening mark",
    );
    await db.selectFrom("t").selectAll().execute();
    assert.equal(unmarkedWriteCount(db), unmarked + 1, "a read");
    await database.db.transaction().execute((trx) => {
      assert.equal(unmarkedWriteCount(trx), undefined, "none on a transaction's handle");
      return Promise.resolve();
    });
  });
});
