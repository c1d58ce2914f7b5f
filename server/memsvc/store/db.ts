/**
 * memsvc's database: opened on PGlite or PostgreSQL, migrated, and stamped with an instance id that
 * stays the same across restarts, so logs and metrics from one installation can be told apart.
 */
import type { Generated } from "kysely";
import { type Database, migrate, openDatabase } from "../../../internal/db/mod.ts";
import type { Logger } from "../../../internal/log/logger.ts";
import { migrations } from "./migrations/mod.ts";

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

export interface EngineStateTable {
  key: string;
  value: JsonValue;
  updated_at: Generated<Date>;
}

/** better-auth's user table (admin plugin columns included); the library writes it, we read it. */
export interface UserTable {
  id: string;
  name: string;
  email: string;
  emailVerified: boolean;
  image: string | null;
  createdAt: Generated<Date>;
  updatedAt: Generated<Date>;
  role: string | null;
  banned: boolean | null;
  banReason: string | null;
  banExpires: Date | null;
}

/** User API tokens: only the SHA-256 of the plaintext is stored. */
export interface UserTokensTable {
  token_hash: string;
  user_id: string;
  label: string;
  created_at: Generated<Date>;
  last_used_at: Date | null;
}

export interface AuditLogTable {
  /** bigserial: postgres.js and our PGlite parsers both return int8 as a string. */
  id: Generated<string>;
  at: Generated<Date>;
  actor_id: string | null;
  action: string;
  target: string | null;
  metadata: Generated<JsonValue>;
}

/** The Kysely table interface of memsvc's own schema (better-auth's other tables are its own). */
export interface MemsvcDatabase {
  engine_state: EngineStateTable;
  user: UserTable;
  user_tokens: UserTokensTable;
  audit_log: AuditLogTable;
}

export interface MemsvcStore {
  database: Database<MemsvcDatabase>;
  /** A random UUID chosen on the first start and kept in engine_state. */
  instanceId: string;
  /** Migrations applied by this start; empty when the schema was already current. */
  applied: string[];
}

export interface OpenMemsvcStoreOptions {
  /** MEMSVC_DATABASE_URL: a postgres:// url, or unset for PGlite in dataDir. */
  url?: string;
  dataDir: string;
  log?: Logger;
}

export async function openMemsvcStore(options: OpenMemsvcStoreOptions): Promise<MemsvcStore> {
  const database = await openDatabase<MemsvcDatabase>({
    url: options.url,
    dataDir: options.dataDir,
    log: options.log,
  });
  try {
    const { applied } = await migrate(database.db, migrations, options.log);
    return { database, instanceId: await ensureInstanceId(database), applied };
  } catch (err) {
    await database.close();
    throw err;
  }
}

async function ensureInstanceId({ db }: Database<MemsvcDatabase>): Promise<string> {
  // ON CONFLICT keeps the first id when two servers start on one PostgreSQL at the same time.
  await db.insertInto("engine_state")
    .values({ key: "instance_id", value: crypto.randomUUID() })
    .onConflict((oc) => oc.column("key").doNothing())
    .execute();
  const { value } = await db.selectFrom("engine_state").select("value").where("key", "=", "instance_id")
    .executeTakeFirstOrThrow();
  if (typeof value !== "string") {
    throw new Error(`engine_state instance_id is not a string: ${JSON.stringify(value)}`);
  }
  return value;
}
