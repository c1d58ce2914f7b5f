/**
 * Test helper: memsvc routes mounted on the shared app (request ids, JSON errors) behind a stand-in
 * for the caller-resolution middleware that sets a fixed caller, or none.
 */
import { Hono } from "hono";
import { createApp } from "../../../internal/http/mod.ts";
import { silentLogger } from "../../../internal/log/mod.ts";
import type { Caller, Role } from "../../../internal/auth/mod.ts";
import type { MemsvcEnv } from "../env.ts";
import { insertUser, openTestStore, type TestStore, type TestUser } from "../_test_store.ts";
import { TokenStore } from "../tokens/api_tokens.ts";

export type Call = (path: string, init?: RequestInit) => Promise<Response>;

/** A request function for `routes` as seen by `caller` (undefined: no credentials). */
export function callAs(routes: Hono<MemsvcEnv>, caller: Caller | undefined): Call {
  const withCaller = new Hono<MemsvcEnv>()
    .use(async (c, next) => {
      c.set("caller", caller);
      await next();
    })
    .route("/", routes);
  const app = createApp({ log: silentLogger }).route("/", withCaller);
  return async (path, init) => await app.request(path, init, { remoteAddr: "127.0.0.1" });
}

export function sessionCaller(
  userId: string,
  role: Role = "user",
  via: "cookie" | "session-bearer" = "cookie",
): Caller {
  return { userId, email: `${userId}@example.test`, role, via, sessionId: `session-${userId}` };
}

export function apiTokenCaller(userId: string, tokenHash: string, role: Role = "user"): Caller {
  return { userId, email: `${userId}@example.test`, role, via: "api-token", tokenHash };
}

export function jsonBody(method: string, body: unknown): RequestInit {
  return { method, headers: { "content-type": "application/json" }, body: JSON.stringify(body) };
}

/** A fresh store with these users and a TokenStore on it; closeTokenStore drains the one and closes the other. */
export async function openTokenStore(users: TestUser[]): Promise<{ store: TestStore; tokens: TokenStore }> {
  const store = await openTestStore();
  for (const user of users) await insertUser(store.db, user);
  return { store, tokens: new TokenStore(store.db) };
}

export async function closeTokenStore(
  { store, tokens }: { store: TestStore; tokens: TokenStore },
): Promise<void> {
  await tokens.drain();
  await store.close();
}

/** The callers an admin-only route refuses, with the status: a user's session, an admin's API token, nobody. */
export const NOT_ADMIN_SESSIONS = [
  [sessionCaller("bob"), 403],
  [apiTokenCaller("root", "e".repeat(64), "admin"), 403],
  [undefined, 401],
] as const;
