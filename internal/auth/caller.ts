/**
 * Who is calling. Every guarded route reads the caller that the caller-resolution middleware
 * (resolve_caller.ts) put on the context; routes never look at headers or cookies themselves.
 */
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { AppEnv } from "../http/mod.ts";

export type Role = "admin" | "user";

/**
 * How the caller proved who they are:
 * - "cookie": a browser session cookie;
 * - "session-bearer": `Authorization: Bearer <session prefix><session token>`;
 * - "api-token": `Authorization: Bearer <API token>` (a user's API token or key);
 * - "shared-bearer": a shared operator token (memsvc's bearer mode);
 * - "local": no authentication, every request acts as the local user (memsvc's none mode).
 */
export type CallerVia = "cookie" | "session-bearer" | "api-token" | "shared-bearer" | "local";

export interface Caller {
  userId: string;
  email: string;
  role: Role;
  via: CallerVia;
  /** SHA-256 hex of the API token, when via is "api-token". */
  tokenHash?: string;
  /** What an API token may do, when the tool scopes its tokens; absent means everything. */
  scope?: "read" | "read-write";
  /** The session id, when via is "cookie" or "session-bearer". */
  sessionId?: string;
}

export interface CallerVariables {
  caller: Caller | undefined;
}

/** The Hono environment of routes behind caller resolution: the shared app's plus the caller. */
export interface AuthEnv {
  Bindings: AppEnv["Bindings"];
  Variables: AppEnv["Variables"] & CallerVariables;
}

/** A signed-in session, by cookie or session bearer. */
export function isSession(caller: Caller): boolean {
  return caller.via === "cookie" || caller.via === "session-bearer";
}

/** The caller, or 401 when the request carried no valid credential. */
export function callerOf(c: Context<AuthEnv>): Caller {
  const caller = c.get("caller");
  if (!caller) throw new HTTPException(401, { message: "unauthorized" });
  return caller;
}
