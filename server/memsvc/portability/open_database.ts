/**
 * Opens memsvc's database for an offline tool (export, import, backup, restore, migrate) exactly as
 * `memsvc serve` selects it: MEMSVC_DATABASE_URL, else the embedded database in MEMSVC_DATA_DIR (or
 * its default). Only the variables these tools need are read, so they run without a cookie secret.
 */
import { z } from "zod";
import { loadEnv } from "../../../internal/config/mod.ts";
import { type Database, openMigratedDatabase } from "../../../internal/db/mod.ts";
import { memsvcEnv } from "../config.ts";
import { embeddingsEnv } from "../embeddings/config.ts";
import type { MemsvcDatabase } from "../store/db.ts";
import { migrations } from "../store/migrations/mod.ts";

export const portabilityEnv = z.object({
  MEMSVC_DATA_DIR: memsvcEnv.shape.MEMSVC_DATA_DIR,
  MEMSVC_DATABASE_URL: memsvcEnv.shape.MEMSVC_DATABASE_URL,
  ...embeddingsEnv.shape,
});
export type PortabilityConfig = z.output<typeof portabilityEnv>;

export function loadPortabilityConfig(
  env: Record<string, string | undefined> = process.env,
): PortabilityConfig {
  return loadEnv(portabilityEnv, env);
}

/** The embedded data dir is held by a running server: the message says what to do instead. */
export class DataDirInUseError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "DataDirInUseError";
  }
}

/** Where a tool's database lives, for messages: the data dir, or the url without credentials. */
export function describeDatabase(config: { MEMSVC_DATABASE_URL?: string; MEMSVC_DATA_DIR: string }): string {
  const url = config.MEMSVC_DATABASE_URL;
  if (!url) return `the embedded database in ${config.MEMSVC_DATA_DIR}`;
  return url.replace(/\/\/[^@/]*@/, "//***@");
}

/**
 * Opens and migrates the configured database. On the embedded database a running `memsvc serve`
 * holds the data dir; that becomes a DataDirInUseError whose message ends with `hint`.
 */
export async function openConfiguredDatabase(
  config: { MEMSVC_DATABASE_URL?: string; MEMSVC_DATA_DIR: string },
  hint: string,
): Promise<Database<MemsvcDatabase>> {
  try {
    const { database } = await openMigratedDatabase<MemsvcDatabase>({
      url: config.MEMSVC_DATABASE_URL,
      dataDir: config.MEMSVC_DATA_DIR,
      maxConnections: 2,
    }, migrations);
    return database;
  } catch (err) {
    const message = (err as Error).message;
    if (/is in use by process/.test(message)) {
      throw new DataDirInUseError(`${message}; ${hint}`, { cause: err });
    }
    throw err;
  }
}

/** Names of the migrations applied to a database, in order. */
export async function appliedMigrations(database: Database<MemsvcDatabase>): Promise<string[]> {
  // deno-lint-ignore no-explicit-any
  const rows = await (database.db as any).selectFrom("schema_migrations").select("name").orderBy("name")
    .execute() as { name: string }[];
  return rows.map((r) => r.name);
}
