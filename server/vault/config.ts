/**
 * The vault's environment, read once at start through one schema. Every variable is documented in
 * docs/vault.md; flags of `vault serve` override the variables of the same meaning.
 *
 * BETTER_AUTH_SECRET and DATABASE_URL carry no VAULT_ prefix: they are the names the reference
 * service and the identity library use, so an existing deployment's settings keep working.
 */
import { isAbsolute, join, resolve } from "node:path";
import { z } from "zod";
import { csv, defaultDataDir, loadEnv, port, positiveInt } from "../../internal/config/mod.ts";
import { LOG_LEVELS } from "../../internal/log/mod.ts";

const POSTGRES_URL = /^postgres(ql)?:\/\//i;

export const vaultEnv = z.object({
  /** Signs session cookies. Required: start fails naming it when missing. */
  BETTER_AUTH_SECRET: z.string().min(32, "must be at least 32 characters (try: openssl rand -hex 32)"),
  /**
   * Where users, sessions, invites, keys and indexes live: a postgres:// URL selects a PostgreSQL
   * server; anything else is the directory of the embedded database (created when missing).
   */
  DATABASE_URL: z.string().min(1).refine(
    (v) => POSTGRES_URL.test(v) || !/^[a-z][a-z0-9+.-]*:\/\//i.test(v),
    "must be a postgres:// or postgresql:// URL, or a directory path for the embedded database",
  ),
  /** Interface to listen on. Loopback by default: exposing the service is a deliberate choice. */
  VAULT_HOST: z.string().min(1).default("127.0.0.1"),
  VAULT_PORT: port(7779),
  /** The notes files: one directory per user below it. */
  VAULT_DATA_DIR: z.string().min(1).default(defaultDataDir("vault")),
  /** The public origin users reach the service at; the trusted origin for CSRF checks. */
  VAULT_BASE_URL: z.url({ protocol: /^https?$/, message: "must be an http:// or https:// URL" }).optional(),
  /** Origins allowed to call the API from a browser; default same-origin only. */
  VAULT_CORS_ORIGINS: csv(),
  /** Proxies (IPs or CIDRs) whose X-Request-Id and X-Forwarded-For headers are believed. */
  VAULT_TRUSTED_PROXIES: csv(),
  VAULT_LOG_LEVEL: z.enum(LOG_LEVELS).default("info"),
  /** json or pretty; default pretty on a terminal, json otherwise. */
  VAULT_LOG_FORMAT: z.enum(["json", "pretty"]).optional(),
  /** Largest request body; a note is at most 1 MB, so 2 MiB leaves room for JSON escaping. */
  VAULT_MAX_BODY_BYTES: positiveInt(2 * 1024 * 1024),
  /** Largest upload to POST /api/import (a zip), and most bytes one import takes in all. */
  VAULT_IMPORT_MAX_BYTES: positiveInt(1024 * 1024 * 1024),
  /** How long shutdown waits for in-flight requests. */
  VAULT_SHUTDOWN_TIMEOUT_MS: positiveInt(10_000),
  /** An MCP session not used for this long ends; the client initializes again (default 30 minutes). */
  VAULT_MCP_IDLE_MS: positiveInt(30 * 60_000),
  /**
   * The sustained request rate of one API key (token bucket refill; docs/vault.md says why 600): agents
   * that stay under it are never refused.
   */
  VAULT_API_KEY_RATE_PER_MINUTE: positiveInt(600),
  /** Requests one API key may make at once after a quiet spell (the bucket's size). */
  VAULT_API_KEY_BURST: positiveInt(300),
  /** How often /ws/vault sends a heartbeat. */
  VAULT_WS_HEARTBEAT_MS: positiveInt(25_000),
  /** Bytes that may wait for a slow /ws/vault client before it is dropped (1008). */
  VAULT_WS_MAX_BUFFERED_BYTES: positiveInt(1024 * 1024),
  /**
   * For tests only: this process announces its changes to the other replicas this much later, as a slow
   * database would (docs/vault.md, live events). Default 0.
   */
  VAULT_TEST_ANNOUNCE_DELAY_MS: z.coerce.number().int().min(0).max(60_000).default(0),
  /** A collaboratively edited note is written back after this long without edits... */
  VAULT_COLLAB_WRITE_BACK_MS: positiveInt(2_000),
  /** ...and at most this long after its first unsaved edit. */
  VAULT_COLLAB_MAX_WRITE_BACK_MS: positiveInt(30_000),
  /** A document nobody has open is dropped from memory after this long. */
  VAULT_COLLAB_EVICT_MS: positiveInt(60_000),
  /** The plugins folder (one folder per plugin, named for its id); default `<VAULT_DATA_DIR>/plugins`. */
  VAULT_PLUGINS_DIR: z.string().min(1).optional(),
  /** Longest a plugin's call (activate, a route, an event) may run before its sandbox is killed. */
  VAULT_PLUGIN_TIMEOUT_MS: positiveInt(5_000),
  /** Most resident memory a plugin's sandbox process may use (MB) before it is killed (Linux). */
  VAULT_PLUGIN_MEMORY_MB: positiveInt(256),
  /** Sign-in with GitHub (an OAuth app; callback `<base>/api/auth/callback/github`). */
  VAULT_GITHUB_CLIENT_ID: z.string().min(1).optional(),
  VAULT_GITHUB_CLIENT_SECRET: z.string().min(1).optional(),
  /** GitHub's endpoints; GitHub Enterprise or a test provider sets its own. */
  VAULT_GITHUB_AUTHORIZATION_URL: z.url().default("https://github.com/login/oauth/authorize"),
  VAULT_GITHUB_TOKEN_URL: z.url().default("https://github.com/login/oauth/access_token"),
  VAULT_GITHUB_API_URL: z.url().default("https://api.github.com"),
  /** Sign-in with Google (an OAuth client; callback `<base>/api/auth/callback/google`). */
  VAULT_GOOGLE_CLIENT_ID: z.string().min(1).optional(),
  VAULT_GOOGLE_CLIENT_SECRET: z.string().min(1).optional(),
  VAULT_GOOGLE_AUTHORIZATION_URL: z.url().default("https://accounts.google.com/o/oauth2/v2/auth"),
  VAULT_GOOGLE_TOKEN_URL: z.url().default("https://oauth2.googleapis.com/token"),
  VAULT_GOOGLE_USERINFO_URL: z.url().default("https://openidconnect.googleapis.com/v1/userinfo"),
});

export type VaultConfig = z.output<typeof vaultEnv>;

/**
 * What the offline commands (`vault import`/`vault export` without a server) read: where the
 * database and the notes are. No secret: they sign nothing.
 */
export const vaultOfflineEnv = vaultEnv.pick({
  DATABASE_URL: true,
  VAULT_DATA_DIR: true,
  VAULT_IMPORT_MAX_BYTES: true,
});
export type VaultOfflineConfig = z.output<typeof vaultOfflineEnv>;

/** What the commands that call a running server read: its URL and an API key (as vault-mcp does). */
export const vaultClientEnv = z.object({
  VAULT_URL: z.url({ protocol: /^https?$/, message: "must be an http:// or https:// URL" }),
  VAULT_TOKEN: z.string().min(1, "is required but not set"),
});
export type VaultClientConfig = z.output<typeof vaultClientEnv>;

export function loadVaultConfig(env: Record<string, string | undefined> = process.env): VaultConfig {
  return loadEnv(vaultEnv, env);
}

/** The database DATABASE_URL names: a server URL, or the embedded database's directory. */
export function databaseOf(config: Pick<VaultConfig, "DATABASE_URL">): { url?: string; dataDir?: string } {
  const value = config.DATABASE_URL;
  if (POSTGRES_URL.test(value)) return { url: value };
  return { dataDir: isAbsolute(value) ? value : resolve(value) };
}

/** The public origin of the service: VAULT_BASE_URL, or the address it listens on. */
export function baseUrlOf(config: VaultConfig): string {
  if (config.VAULT_BASE_URL) return config.VAULT_BASE_URL.replace(/\/+$/, "");
  const host = ["0.0.0.0", "::", ""].includes(config.VAULT_HOST) ? "127.0.0.1" : config.VAULT_HOST;
  return `http://${host.includes(":") ? `[${host}]` : host}:${config.VAULT_PORT}`;
}

/** The plugins folder: VAULT_PLUGINS_DIR, or `plugins` in the data folder (beside the users' notes). */
export function pluginsDirOf(config: VaultConfig): string {
  return resolve(config.VAULT_PLUGINS_DIR ?? join(config.VAULT_DATA_DIR, "plugins"));
}
