/** What black-box vault tests start `vault serve` with, and a client that writes like the web app. */
import { join } from "node:path";
import { Client, type Reply } from "./http_client.ts";

/** A session secret long enough for the schema; tests also scan logs for it. */
export const TEST_AUTH_SECRET = "vault-test-auth-secret-0123456789abcdef0123";

/**
 * The environment of a test server: a private HOME, the embedded database in `<home>/db` (or
 * `databaseUrl`), notes in `<home>/notes`, a port the OS picks (read back from the "listening" log
 * line), JSON logs, and `extra` last so a test can override or drop any of them.
 */
export function vaultEnv(
  home: string,
  options: { databaseUrl?: string; extra?: Record<string, string> } = {},
): Record<string, string> {
  return {
    HOME: home,
    BETTER_AUTH_SECRET: TEST_AUTH_SECRET,
    DATABASE_URL: options.databaseUrl ?? join(home, "db"),
    VAULT_DATA_DIR: join(home, "notes"),
    VAULT_PORT: "0",
    VAULT_LOG_FORMAT: "json",
    ...options.extra,
  };
}

/**
 * A browser-like client: the session cookie, the page's Origin, and `X-Requested-With` on every
 * write (the vault's CSRF rule for cookie-authenticated writes).
 */
export class VaultClient extends Client {
  constructor(baseUrl: string, init: { bearer?: string; cookie?: string } = {}) {
    super(baseUrl, { origin: baseUrl, ...init });
  }

  write(method: string, path: string, body?: unknown): Promise<Reply> {
    return this.call(method, path, body, { "X-Requested-With": "XMLHttpRequest" });
  }
}
