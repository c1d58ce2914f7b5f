/**
 * `vault import` and `vault export` offline, on the notes folder and the database of a stopped server
 * (DATABASE_URL and VAULT_DATA_DIR as `vault serve` reads them). The online side is remote.ts.
 */
import { sql } from "kysely";
import { CliError } from "../../../internal/cli/cli_error.ts";
import { databaseOf, type VaultOfflineConfig } from "../config.ts";
import { IndexSync } from "../indexing/index_sync.ts";
import { NoteStore } from "../notes/mod.ts";
import { openVaultStore } from "../store/db.ts";
import { serversUsing } from "../store/serving_marker.ts";

/**
 * Opens the notes and the database of a stopped server, refusing while a server uses either (its
 * marker in the notes folder, or the embedded database's lock), and finds the user by email.
 */
export async function openOffline(config: VaultOfflineConfig, email: string) {
  const hint = "stop it first, or go through it: --server <url> with VAULT_TOKEN";
  const running = await serversUsing(config.VAULT_DATA_DIR);
  if (running.length) {
    throw new CliError(`a vault server is using ${config.VAULT_DATA_DIR} (${running.join(", ")}): ${hint}`);
  }
  let opened;
  try {
    opened = await openVaultStore(databaseOf(config));
  } catch (err) {
    const message = (err as Error).message;
    if (/is in use by process/.test(message)) {
      throw new CliError(`a vault server holds the database: ${message}; ${hint}`);
    }
    throw err;
  }
  const db = opened.database.db;
  const user = await db.selectFrom("user").select(["id", "email"])
    .where(sql<boolean>`lower(email) = lower(${email})`).executeTakeFirst();
  if (!user) {
    await opened.database.close();
    throw new CliError(`no user with email ${email} in this vault`);
  }
  const store = new NoteStore({ dataDir: config.VAULT_DATA_DIR });
  return {
    store,
    sync: new IndexSync(db, store),
    userId: user.id,
    email: user.email,
    close: () => opened.database.close(),
  };
}
