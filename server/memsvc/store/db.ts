/**
 * memsvc's database: opened on PGlite or PostgreSQL, migrated, and stamped with an instance id that
 * stays the same across restarts, so logs and metrics from one installation can be told apart.
 */
import type { Generated } from "kysely";
import type { AuditLogTable, JsonValue } from "../../../internal/audit/mod.ts";
import type { UserTable } from "../../../internal/auth/identity_tables.ts";
import { type Database, openMigratedDatabase, serviceDatabaseOptions } from "../../../internal/db/mod.ts";
import type { Logger } from "../../../internal/log/logger.ts";
import { migrations } from "./migrations/mod.ts";

export type { JsonValue };

export interface EngineStateTable {
  key: string;
  value: JsonValue;
  updated_at: Generated<Date>;
}

/** User API tokens: only the SHA-256 of the plaintext is stored. */
export interface UserTokensTable {
  token_hash: string;
  user_id: string;
  label: string;
  created_at: Generated<Date>;
  last_used_at: Date | null;
}

export interface ProjectsTable {
  id: string;
  name: string;
  name_key: string;
  owner_id: string;
  created_at: Generated<Date>;
}

export interface ProjectMembersTable {
  project_id: string;
  user_id: string;
  added_at: Generated<Date>;
}

export interface UserActiveProjectTable {
  user_id: string;
  project_id: string;
  set_at: Generated<Date>;
}

export interface MemoryEntriesTable {
  id: string;
  user_id: string;
  project_id: string | null;
  namespace: Generated<string>;
  content: string;
  content_hash: string;
  hit_count: Generated<number>;
  metadata: Generated<JsonValue>;
  source_type: string | null;
  captured_from: string | null;
  confidence: Generated<number>;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
  last_accessed_at: Date | null;
  /** Demoted by decay: out of the keyword tier until a search hit promotes it. */
  cold: Generated<boolean>;
  /** Memories of one user with the same session id, in capture order, are one conversation. */
  session_id: string | null;
  /** Capture order (int8: a string on both backends). */
  capture_seq: Generated<string>;
  /** Moves on every change the search index holds (see migration 0005). */
  change_seq: Generated<string>;
}

export interface MemoryDeletionsTable {
  seq: Generated<string>;
  entry_id: string;
  deleted_at: Generated<Date>;
}

export interface MemoryEdgesTable {
  from_id: string;
  to_id: string;
  relation: string;
  weight: Generated<number>;
  created_at: Generated<Date>;
}

export interface MemoryVectorsTable {
  entry_id: string;
  model: string;
  vector: Uint8Array;
  /** int8: returned as a string on both backends. */
  seq: Generated<string>;
}

export interface MetricsSamplesTable {
  minute: Date;
  user_id: string;
  token_hash: Generated<string>;
  counts: JsonValue;
}

/** The Kysely table interface of memsvc's own schema (better-auth's other tables are its own). */
export interface MemsvcDatabase {
  engine_state: EngineStateTable;
  user: UserTable;
  user_tokens: UserTokensTable;
  audit_log: AuditLogTable;
  projects: ProjectsTable;
  project_members: ProjectMembersTable;
  user_active_project: UserActiveProjectTable;
  memory_entries: MemoryEntriesTable;
  memory_edges: MemoryEdgesTable;
  memory_vectors: MemoryVectorsTable;
  memory_deletions: MemoryDeletionsTable;
  metrics_samples: MetricsSamplesTable;
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
  const { database, applied } = await openMigratedDatabase<MemsvcDatabase>({
    url: options.url,
    dataDir: options.dataDir,
    log: options.log,
    ...serviceDatabaseOptions(),
  }, migrations);
  try {
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
