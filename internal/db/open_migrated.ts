import type { Database, OpenDatabaseOptions } from "./open_database.ts";
import { openDatabase } from "./open_database.ts";
import { migrate, type Migration } from "./migrate.ts";

/** A database opened and brought to the latest schema. */
export interface MigratedDatabase<DB> {
  database: Database<DB>;
  /** Migrations applied by this start; empty when the schema was already current. */
  applied: string[];
}

/**
 * Opens the database (PGlite or PostgreSQL, openDatabase) and applies the pending migrations under
 * migrate's advisory lock, so replicas starting together apply each one once. A failed migration
 * closes the database again: the caller gets either a current schema or an error, never a handle.
 *
 * @example
 * const { database, applied } = await openMigratedDatabase<MyTables>({ url, dataDir, log }, migrations);
 */
export async function openMigratedDatabase<DB>(
  options: OpenDatabaseOptions,
  migrations: Record<string, Migration>,
): Promise<MigratedDatabase<DB>> {
  const database = await openDatabase<DB>(options);
  try {
    const { applied } = await migrate(database.db, migrations, options.log);
    return { database, applied };
  } catch (err) {
    await database.close();
    throw err;
  }
}
