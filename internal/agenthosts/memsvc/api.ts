/**
 * The few memsvc routes its installer calls: email sign-in (a session, sent as `Bearer ns_<token>`),
 * minting and deleting API tokens, a token check, and GET /health. Errors name the server and what
 * failed, never a password or token.
 */
import type { Credentials } from "../credentials.ts";
import { callServer, checkHealth as health, type Reply } from "../server_api.ts";
import { CliError } from "../../cli/mod.ts";

function call(
  baseUrl: string,
  method: string,
  path: string,
  bearer?: string,
  body?: unknown,
): Promise<Reply> {
  return callServer(baseUrl, method, path, { what: "memsvc", bearer, body });
}

function failure(what: string, reply: Reply): CliError {
  const detail = reply.body?.error ?? reply.body?.message ?? `HTTP ${reply.status}`;
  return new CliError(`${what}: ${detail}`);
}

/** Signs in, runs `fn` with the session token (sent as `Bearer ns_<token>`), and always signs out. */
export async function withSession<T>(
  baseUrl: string,
  credentials: Credentials,
  fn: (session: string) => Promise<T>,
): Promise<T> {
  const reply = await call(baseUrl, "POST", "/api/auth/sign-in/email", undefined, credentials);
  if (reply.status === 401) throw new CliError(`sign-in to ${baseUrl} failed: wrong email or password`);
  if (reply.status !== 200 || typeof reply.body?.token !== "string") throw failure("sign-in failed", reply);
  const session = `ns_${reply.body.token}`;
  try {
    return await fn(session);
  } finally {
    // Best effort: the session expires on its own, and a failed sign-out must not hide the result.
    await call(baseUrl, "POST", "/api/auth/sign-out", session, {}).catch(() => undefined);
  }
}

export async function mintToken(
  baseUrl: string,
  session: string,
  label: string,
): Promise<{ token: string; tokenHash: string; label: string }> {
  const reply = await call(baseUrl, "POST", "/v1/me/tokens", session, { label });
  if (reply.status !== 201) throw failure("minting an API token failed", reply);
  return reply.body;
}

/** Deletes one of the user's tokens by hash; false when the server has no such token (already gone). */
export async function deleteToken(baseUrl: string, session: string, tokenHash: string): Promise<boolean> {
  const reply = await call(baseUrl, "DELETE", `/v1/me/tokens/${tokenHash}`, session);
  if (reply.status === 404) return false;
  if (reply.status !== 200) throw failure("revoking the API token failed", reply);
  return true;
}

/** Whether the token is still accepted (not revoked, its user not banned). */
export async function tokenWorks(baseUrl: string, token: string): Promise<boolean> {
  const reply = await call(baseUrl, "GET", "/v1/recent?limit=1", token);
  if (reply.status === 401) return false;
  if (reply.status !== 200) throw failure("checking the recorded API token failed", reply);
  return true;
}

/** GET /health: whether the server answers `{ok: true}`, or why not. */
export function checkHealth(baseUrl: string): Promise<{ ok: boolean; error?: string }> {
  return health(baseUrl, { what: "memsvc" });
}
