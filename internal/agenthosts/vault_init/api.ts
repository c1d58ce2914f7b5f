/**
 * The few vault routes the installer calls: GET /health, email sign-in (a session cookie), API key
 * minting and revocation (session only: a key cannot manage keys), and GET /api/me to tell whether a
 * key still works. Errors name the server and the status, never a password, cookie or key.
 */
import type { Credentials } from "../credentials.ts";
import { callServer, checkHealth as health, type Reply } from "../server_api.ts";
import { CliError } from "../../cli/mod.ts";

export interface MintedKey {
  id: string;
  prefix: string;
  key: string;
  name: string;
}

/** The vault's CSRF rule: cookie-authenticated writes carry X-Requested-With and the vault's Origin. */
const names = (server: string) => ({
  what: "the vault",
  headers: { origin: new URL(server).origin, "x-requested-with": "vault-init" },
  redirect: "manual" as const,
});

function call(
  server: string,
  method: string,
  path: string,
  init: { cookie?: string; bearer?: string; body?: unknown } = {},
): Promise<Reply> {
  return callServer(server, method, path, { ...names(server), ...init });
}

function failure(what: string, server: string, reply: Reply): CliError {
  const detail = typeof reply.body?.error === "string" ? `: ${reply.body.error}` : "";
  return new CliError(`${what} at ${server} failed (HTTP ${reply.status}${detail})`);
}

/** Whether the server answers GET /health with {ok: true}; names what went wrong otherwise. */
export function checkHealth(server: string): Promise<{ ok: boolean; error?: string }> {
  return health(server, names(server));
}

/**
 * Throws unless `server` answers like a vault, before anyone types a password for it. memsvc answers
 * GET /health the same way, so the vault's own GET /api/auth/registration tells them apart; a memsvc
 * server is named as such, with the command that wires hosts to it.
 */
export async function requireVault(server: string): Promise<void> {
  const health = await checkHealth(server);
  if (!health.ok) throw new CliError(`${server} does not answer like a vault (GET /health: ${health.error})`);
  const registration = await call(server, "GET", "/api/auth/registration");
  if (registration.status === 200 && typeof registration.body?.mode === "string") return;
  const openapi = await call(server, "GET", "/openapi.json").catch(() => undefined);
  if (openapi?.body?.info?.title === "memsvc") {
    throw new CliError(
      `${server} is a memsvc server, not a vault: vault-init wires hosts to a vault only; run ` +
        `'memsvc install --server ${server}' to wire them to memsvc`,
    );
  }
  throw new CliError(
    `${server} does not answer like a vault (GET /api/auth/registration: HTTP ${registration.status})`,
  );
}

/** The `name=value` pairs of the session cookie(s) the sign-in set. */
function sessionCookie(headers: Headers): string | undefined {
  const pairs = headers.getSetCookie().map((c) => c.split(";")[0]!.trim());
  const session = pairs.filter((p) => /^(__Secure-)?[\w.-]*session_token=/.test(p));
  return session.length ? session.join("; ") : undefined;
}

/** Signs in, runs `fn` with the session cookie, and always signs out afterwards. */
export async function withSession<T>(
  server: string,
  credentials: Credentials,
  fn: (cookie: string) => Promise<T>,
): Promise<T> {
  const reply = await call(server, "POST", "/api/auth/sign-in/email", { body: credentials });
  if (reply.status === 401) throw new CliError(`sign-in to ${server} failed: wrong email or password`);
  if (reply.status === 429) throw new CliError(`sign-in to ${server} refused: too many attempts, try later`);
  const cookie = sessionCookie(reply.headers);
  if (reply.status !== 200 || !cookie) throw failure("sign-in", server, reply);
  try {
    return await fn(cookie);
  } finally {
    // Best effort: the session expires anyway, and a failed sign-out must not hide the result.
    await call(server, "POST", "/api/auth/sign-out", { cookie, body: {} }).catch(() => undefined);
  }
}

/** Mints a read-write key named `name`; the vault shows the key this once. */
export async function mintKey(server: string, cookie: string, name: string): Promise<MintedKey> {
  const reply = await call(server, "POST", "/api/api-keys", { cookie, body: { name, scope: "read-write" } });
  if (reply.status !== 201 || typeof reply.body?.key !== "string") {
    throw failure("minting an API key", server, reply);
  }
  const { id, prefix, key } = reply.body as MintedKey;
  return { id, prefix, key, name };
}

/** Revokes a key by id; false when the vault has no such key (already revoked). */
export async function revokeKey(server: string, cookie: string, id: string): Promise<boolean> {
  const reply = await call(server, "DELETE", `/api/api-keys/${encodeURIComponent(id)}`, { cookie });
  if (reply.status === 404) return false;
  if (reply.status !== 204 && reply.status !== 200) throw failure("revoking the API key", server, reply);
  return true;
}

/** Whether the key is still accepted (not revoked, not expired, its user not disabled). */
export async function keyWorks(server: string, key: string): Promise<boolean> {
  const reply = await call(server, "GET", "/api/me", { bearer: key });
  if (reply.status === 401) return false;
  if (reply.status !== 200) throw failure("checking the recorded API key", server, reply);
  return true;
}
