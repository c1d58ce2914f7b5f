/**
 * The vault's database: opened on PGlite (a directory) or PostgreSQL (a URL), and migrated at start
 * under a lock, so replicas starting together apply each migration once.
 */
import type { Generated } from "kysely";
import type { AuditTables } from "../../../internal/audit/mod.ts";
import type { IdentityTables } from "../../../internal/auth/mod.ts";
import { type Database, openMigratedDatabase, serviceDatabaseOptions } from "../../../internal/db/mod.ts";
import type { Logger } from "../../../internal/log/mod.ts";
import type { SearchTables } from "../search/mod.ts";
import { migrations } from "./migrations/mod.ts";

export interface SettingsTable {
  key: string;
  value: string;
  updated_at: Generated<Date>;
}

export interface InviteCodesTable {
  id: string;
  code: string;
  created_by: string | null;
  created_at: Generated<Date>;
  expires_at: Date | null;
  used_by: string | null;
  used_at: Date | null;
  revoked_at: Date | null;
}

export interface ApiKeysTable {
  id: string;
  user_id: string;
  name: string;
  prefix: string;
  key_hash: string;
  scope: "read" | "read-write";
  created_at: Generated<Date>;
  expires_at: Date | null;
  last_used_at: Date | null;
  /** The request budget's tokens at `bucket_at`, as the replicas last settled it; null: full. */
  bucket_tokens: number | null;
  bucket_at: Date | null;
}

export type Permission = "read" | "read-write";

export interface NoteSharesTable {
  id: string;
  owner_id: string;
  /** A note path, or a folder ending in "/". */
  path: string;
  grantee_id: string;
  permission: Permission;
  created_at: Generated<Date>;
}

export interface AccessRequestsTable {
  id: string;
  requester_id: string;
  owner_id: string;
  path: string;
  permission: Permission;
  message: string | null;
  status: Generated<"pending" | "approved" | "denied">;
  created_at: Generated<Date>;
  decided_at: Date | null;
}

export interface CollabUpdatesTable {
  id: Generated<string>;
  owner_id: string;
  path: string;
  update: Uint8Array;
  created_at: Generated<Date>;
}

export interface CollabSnapshotsTable {
  owner_id: string;
  path: string;
  state: Uint8Array;
  file_text: string;
  updated_at: Generated<Date>;
}

export interface PluginsTable {
  id: string;
  enabled: Generated<boolean>;
  generation: Generated<number>;
  settings: Generated<Record<string, unknown>>;
  updated_at: Generated<Date>;
}

export interface PluginUserSettingsTable {
  plugin_id: string;
  user_id: string;
  settings: Record<string, unknown>;
}

export interface PluginStorageTable {
  plugin_id: string;
  /** '' for the plugin's global space, else a user id. */
  scope: string;
  key: string;
  value: unknown;
  updated_at: Generated<Date>;
}

export interface UserPreferencesTable {
  user_id: string;
  preferences: Record<string, unknown>;
  updated_at: Generated<Date>;
}

/**
 * The vault's tables: identity (0001), the search index (0002), shares and access requests (0003),
 * passkeys (0004), the collaborative documents' update log and snapshots (0005), plugins (0006), each user's
 * web-app preferences (0008).
 */
export interface VaultDatabase extends IdentityTables, AuditTables, SearchTables {
  plugins: PluginsTable;
  plugin_user_settings: PluginUserSettingsTable;
  plugin_storage: PluginStorageTable;
  collab_updates: CollabUpdatesTable;
  collab_snapshots: CollabSnapshotsTable;
  settings: SettingsTable;
  invite_codes: InviteCodesTable;
  api_keys: ApiKeysTable;
  note_shares: NoteSharesTable;
  access_requests: AccessRequestsTable;
  user_preferences: UserPreferencesTable;
}

export interface VaultStore {
  database: Database<VaultDatabase>;
  /** Migrations applied by this start. */
  applied: string[];
}

export function openVaultStore(
  options: { url?: string; dataDir?: string; log?: Logger },
): Promise<VaultStore> {
  return openMigratedDatabase<VaultDatabase>({ ...options, ...serviceDatabaseOptions() }, migrations);
}
