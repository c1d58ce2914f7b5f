/**
 * Where `vault import` and `vault export` work: through a running server (`--server` or VAULT_URL,
 * with the API key in VAULT_TOKEN, as vault-mcp takes it), or offline on the notes folder and the
 * database of a stopped server (`--user`, DATABASE_URL and VAULT_DATA_DIR as `vault serve` reads them).
 */
import { sql } from "kysely";
import { CliError } from "../../internal/cli/mod.ts";
import { ConfigError, loadEnv } from "../../internal/config/mod.ts";
import {
  databaseOf,
  type VaultClientConfig,
  vaultClientEnv,
  type VaultOfflineConfig,
  vaultOfflineEnv,
} from "../../server/vault/config.ts";
import { IndexSync } from "../../server/vault/indexing/index_sync.ts";
import { NoteStore } from "../../server/vault/notes/mod.ts";
import { openVaultStore } from "../../server/vault/store/db.ts";
import { serversUsing } from "../../server/vault/store/serving_marker.ts";

export interface TargetFlags {
  server?: string;
  dataDir?: string;
  user?: string;
}

export type Target =
  | { kind: "server"; config: VaultClientConfig }
  | { kind: "offline"; config: VaultOfflineConfig; email: string };

/** Decides the target from flags and environment, before any I/O; a bad combination is a usage error. */
export function targetOf(flags: TargetFlags, env: Record<string, string | undefined> = process.env): Target {
  const server = flags.server ?? env.VAULT_URL;
  try {
    if (server) {
      if (flags.user) {
        throw new CliError(
          "--user is for offline use: through a server, the API key (VAULT_TOKEN) names the user",
          2,
        );
      }
      return {
        kind: "server",
        config: loadEnv(vaultClientEnv, { VAULT_URL: server, VAULT_TOKEN: env.VAULT_TOKEN }),
      };
    }
    if (!flags.user) {
      throw new CliError(
        "--user <email> is required offline; to go through a running server set --server (or VAULT_URL) and VAULT_TOKEN",
        2,
      );
    }
    const config = loadEnv(vaultOfflineEnv, {
      ...env,
      ...(flags.dataDir ? { VAULT_DATA_DIR: flags.dataDir } : {}),
    });
    return { kind: "offline", config, email: flags.user };
  } catch (err) {
    if (err instanceof ConfigError) throw new CliError(err.message, 2);
    throw err;
  }
}

/**
 * Opens the notes and the database of a stopped server, refusing while a server uses either (its
 * marker in the notes folder, or the embedded database's lock), and finds the user by email.
 */
export async function openOffline(target: Extract<Target, { kind: "offline" }>) {
  const { config } = target;
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
    .where(sql<boolean>`lower(email) = lower(${target.email})`).executeTakeFirst();
  if (!user) {
    await opened.database.close();
    throw new CliError(`no user with email ${target.email} in this vault`);
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

/** A request to the server with the API key; refusals become one clear line. */
export async function callServer(
  config: VaultClientConfig,
  path: string,
  init: RequestInit & { duplex?: "half" } = {},
): Promise<Response> {
  const url = new URL(path, config.VAULT_URL.replace(/\/*$/, "/"));
  let res: Response;
  try {
    res = await fetch(url, {
      ...init,
      headers: { ...init.headers as Record<string, string>, authorization: `Bearer ${config.VAULT_TOKEN}` },
    });
  } catch (err) {
    throw new CliError(`cannot reach the vault at ${config.VAULT_URL}: ${(err as Error).message}`);
  }
  if (res.ok) return res;
  const body = await res.json().catch(() => ({})) as { error?: string };
  if (res.status === 401) throw new CliError("the vault refused the API key (401): check VAULT_TOKEN");
  if (res.status === 403) {
    throw new CliError(
      `the vault refused (403): ${body.error ?? "forbidden"} (an import needs a read-write key)`,
    );
  }
  throw new CliError(`the vault answered ${res.status}: ${body.error ?? res.statusText}`);
}
