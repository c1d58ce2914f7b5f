/**
 * Where `vault import` and `vault export` work: through a running server (`--server` or VAULT_URL,
 * with the API key in VAULT_TOKEN, as vault-mcp takes it; server/vault/transfer/remote.ts), or offline
 * on the notes folder and the database of a stopped server (`--user`, DATABASE_URL and VAULT_DATA_DIR
 * as `vault serve` reads them; server/vault/transfer/offline.ts).
 */
import { CliError } from "../../internal/cli/mod.ts";
import { ConfigError, loadEnv } from "../../internal/config/mod.ts";
import {
  type VaultClientConfig,
  vaultClientEnv,
  type VaultOfflineConfig,
  vaultOfflineEnv,
} from "../../server/vault/config.ts";

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
