/**
 * Test helper: the search tables migrated on a fresh PGlite directory or a fresh database of a
 * running PostgreSQL 15 (test/harness/postgres.ts), through the same internal/db the server uses.
 */
import { freshDataDir } from "../../../internal/db/_test_data_dir.ts";
import { type Database, migrate, openDatabase } from "../../../internal/db/mod.ts";
import { notesIndex } from "../store/migrations/0002_notes_index.ts";
import { searchChanges } from "../store/migrations/0007_search_changes.ts";
import { linkTargets } from "../store/migrations/0009_link_targets.ts";
import type { SearchTables } from "./schema.ts";

export async function openSearchDb(postgresUrl?: string): Promise<Database<SearchTables>> {
  const database = postgresUrl
    ? await openDatabase<SearchTables>({ url: postgresUrl })
    : await openDatabase<SearchTables>({ dataDir: await freshDataDir() });
  try {
    await migrate(database.db, {
      "0002_notes_index": notesIndex,
      "0007_search_changes": searchChanges,
      "0009_link_targets": linkTargets,
    });
    return database;
  } catch (err) {
    await database.close();
    throw err;
  }
}
