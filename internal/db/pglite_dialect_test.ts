import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Kysely, sql } from "kysely";
import { createPGlite } from "./create_pglite.ts";
import { PGliteDialect } from "./pglite_dialect.ts";
import { freshDataDir, removeDataDirs } from "./_test_data_dir.ts";

interface TestDB {
  item: { name: string };
}

let db: Kysely<TestDB>;

before(async () => {
  db = new Kysely<TestDB>({ dialect: new PGliteDialect(await createPGlite(await freshDataDir())) });
  await db.schema.createTable("item").addColumn("name", "text", (c) => c.primaryKey()).execute();
});

after(async () => {
  await db?.destroy();
  await removeDataDirs();
});

async function names(): Promise<string[]> {
  const rows = await db.selectFrom("item").select("name").orderBy("name").execute();
  return rows.map((r) => r.name);
}

async function reset(): Promise<void> {
  await db.deleteFrom("item").execute();
}

test("PGliteDialect runs queries and reports affected rows", async () => {
  await reset();
  const inserted = await db.insertInto("item").values([{ name: "a" }, { name: "b" }]).executeTakeFirst();
  assert.equal(inserted.numInsertedOrUpdatedRows, 2n);
  const deleted = await db.deleteFrom("item").where("name", "=", "a").executeTakeFirst();
  assert.equal(deleted.numDeletedRows, 1n);
  assert.deepEqual(await names(), ["b"]);
});

test("PGliteDialect commits a transaction and rolls one back when it throws", async () => {
  await reset();
  await db.transaction().execute(async (trx) => {
    await trx.insertInto("item").values({ name: "kept" }).execute();
  });
  await assert.rejects(
    db.transaction().execute(async (trx) => {
      await trx.insertInto("item").values({ name: "dropped" }).execute();
      throw new Error("boom");
    }),
    { message: "boom" },
  );
  assert.deepEqual(await names(), ["kept"]);
});

test("PGliteDialect keeps a query from another code path out of an open transaction", async () => {
  await reset();
  const events: string[] = [];
  let inserted!: () => void;
  const insideTransaction = new Promise<void>((resolve) => inserted = resolve);
  const transaction = db.transaction().execute(async (trx) => {
    await trx.insertInto("item").values({ name: "in-tx" }).execute();
    inserted();
    // Give the other code path every chance to run its query now.
    await new Promise((resolve) => setTimeout(resolve, 50));
    events.push("transaction ends");
    throw new Error("roll back");
  });
  await insideTransaction;
  const outside = db.insertInto("item").values({ name: "outside" }).execute().then(() => {
    events.push("outside query done");
  });
  await assert.rejects(transaction, { message: "roll back" });
  await outside;
  assert.deepEqual(events, ["transaction ends", "outside query done"]);
  // Had the outside insert run inside the transaction, the rollback would have removed it too.
  assert.deepEqual(await names(), ["outside"]);
});

test("PGliteDialect supports savepoints", async () => {
  await reset();
  const trx = await db.startTransaction().execute();
  await trx.insertInto("item").values({ name: "before" }).execute();
  const sp = await trx.savepoint("sp").execute();
  await sp.insertInto("item").values({ name: "after" }).execute();
  await sp.rollbackToSavepoint("sp").execute();
  await trx.commit().execute();
  assert.deepEqual(await names(), ["before"]);
});

test("PGliteDialect refuses to report a commit that PostgreSQL turned into a rollback", async () => {
  await reset();
  await assert.rejects(
    db.transaction().execute(async (trx) => {
      await trx.insertInto("item").values({ name: "x" }).execute();
      await sql`select 1/0`.execute(trx).catch(() => {});
    }),
    { message: /rolled back/ },
  );
  assert.deepEqual(await names(), []);
  // The session is usable afterwards.
  await db.insertInto("item").values({ name: "y" }).execute();
  assert.deepEqual(await names(), ["y"]);
});
