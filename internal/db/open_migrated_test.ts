import assert from "node:assert/strict";
import { after, test } from "node:test";
import type { Migration } from "./migrate.ts";
import { openMigratedDatabase } from "./open_migrated.ts";
import { freshDataDir, removeDataDirs } from "./_test_data_dir.ts";

after(removeDataDirs);

const table: Migration = {
  async up(db) {
    await db.schema.createTable("things").addColumn("id", "integer").execute();
  },
};

test("opens, migrates, and applies nothing the second time", async () => {
  const dataDir = await freshDataDir();
  const first = await openMigratedDatabase({ dataDir }, { "0001_things": table });
  assert.deepEqual(first.applied, ["0001_things"]);
  await first.database.close();
  const second = await openMigratedDatabase({ dataDir }, { "0001_things": table });
  assert.deepEqual(second.applied, []);
  await second.database.close();
});

test("a failed migration closes the database: the data directory can be opened again", async () => {
  const dataDir = await freshDataDir();
  const broken: Migration = { up: () => Promise.reject(new Error("no such thing")) };
  await assert.rejects(
    openMigratedDatabase({ dataDir }, { "0001_things": table, "0002_broken": broken }),
    /migration 0002_broken failed: no such thing/,
  );
  // Held by an unclosed handle, the directory would be refused as in use by this process.
  const again = await openMigratedDatabase({ dataDir }, { "0001_things": table });
  assert.deepEqual(again.applied, ["0001_things"]);
  await again.database.close();
});
