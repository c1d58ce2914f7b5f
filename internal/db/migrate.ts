/**
 * Forward-only schema migrations for both backends, on top of Kysely's Migrator. Migrations are
 * passed in as code (a compiled binary has no migration folder to read) and named `NNNN_what`, so
 * their order is their name. Kysely runs all pending migrations in one transaction under a
 * PostgreSQL advisory lock: servers starting together apply each migration once, and a failing
 * migration leaves the database as it was before the run.
 */
import { type Kysely, sql } from "kysely";
import { Migrator } from "kysely/migration";
import type { Logger } from "../log/logger.ts";

/** A schema change. There is no `down`: a release that needs to undo one ships a new migration. */
export interface Migration {
  // deno-lint-ignore no-explicit-any
  up(db: Kysely<any>): Promise<void>;
}

export interface MigrationStatus {
  name: string;
  /** When the migration was applied, or null while it is pending. */
  appliedAt: Date | null;
}

const MIGRATION_NAME = /^\d{4}_[a-z0-9_]+$/;

/** Applies the pending migrations in name order and returns their names. */
export async function migrate(
  // deno-lint-ignore no-explicit-any
  db: Kysely<any>,
  migrations: Record<string, Migration>,
  log?: Logger,
): Promise<{ applied: string[] }> {
  if (await upToDate(db, migrations)) return { applied: [] };
  const { error, results = [] } = await migrator(db, migrations).migrateToLatest();
  if (error) {
    const failed = results.find((r) => r.status === "Error");
    const reason = error instanceof Error ? error.message : String(error);
    const what = failed ? `migration ${failed.migrationName}` : "migrations";
    throw new Error(`${what} failed: ${reason}`, { cause: error });
  }
  const applied = results.filter((r) => r.status === "Success").map((r) => r.migrationName);
  if (applied.length > 0) log?.info("database migrations applied", { applied });
  return { applied };
}

/**
 * The usual case at start: exactly the known migrations are applied. One read answers it, where the
 * Migrator's full run (lock table, advisory lock, transaction) costs about a tenth of a second on
 * PGlite. Anything else (a new database, pending migrations, or ones this version does not know,
 * which the Migrator refuses) takes the full run.
 */
async function upToDate(db: Kysely<unknown>, migrations: Record<string, Migration>): Promise<boolean> {
  let names: string[];
  try {
    const { rows } = await sql<{ name: string }>`select name from schema_migrations`.execute(db);
    names = rows.map((r) => r.name);
  } catch {
    return false; // no migration table yet
  }
  const known = Object.keys(migrations);
  return names.length === known.length && known.every((name) => names.includes(name));
}

/** Every known migration with the time it was applied, for a `db status` command. */
export async function migrationStatus(
  // deno-lint-ignore no-explicit-any
  db: Kysely<any>,
  migrations: Record<string, Migration>,
): Promise<MigrationStatus[]> {
  const infos = await migrator(db, migrations).getMigrations();
  return infos.map((info) => ({ name: info.name, appliedAt: info.executedAt ?? null }));
}

// deno-lint-ignore no-explicit-any
function migrator(db: Kysely<any>, migrations: Record<string, Migration>): Migrator {
  const bad = Object.keys(migrations).filter((name) => !MIGRATION_NAME.test(name));
  if (bad.length > 0) {
    throw new Error(`invalid migration name ${bad.join(", ")}: names look like 0001_create_things`);
  }
  return new Migrator({
    db,
    provider: { getMigrations: () => Promise.resolve(migrations) },
    migrationTableName: "schema_migrations",
    migrationLockTableName: "schema_migrations_lock",
  });
}
