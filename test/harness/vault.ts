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

/**
 * Signs up `name` as `<name>@example.test` (with `inviteCode` when given) and fails unless the vault
 * answers 201; the client holds the new session.
 */
export async function signUpAs(
  baseUrl: string,
  name: string,
  inviteCode?: string,
): Promise<{ client: VaultClient; id: string; email: string }> {
  const client = new VaultClient(baseUrl);
  const email = `${name}@example.test`;
  const res = await client.post("/api/auth/sign-up/email", {
    email,
    password: `${name}-Pa55word-123`,
    name,
    ...(inviteCode ? { inviteCode } : {}),
  });
  if (res.status !== 201) throw new Error(`sign-up of ${name}: ${res.status} ${JSON.stringify(res.body)}`);
  return { client, id: (res.body as { user: { id: string } }).user.id, email };
}
