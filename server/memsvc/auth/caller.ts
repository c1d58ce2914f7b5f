/**
 * Who is calling. Every /v1 and /mcp route reads the caller that the caller-resolution middleware
 * (resolve_caller.ts) put on the context; routes never look at headers or cookies themselves.
 */
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { MemsvcEnv } from "../env.ts";

export type Role = "admin" | "user";

/**
 * How the caller proved who they are:
 * - "cookie": a dashboard session cookie;
 * - "session-bearer": `Authorization: Bearer ns_<session token>`;
 * - "api-token": `Authorization: Bearer nm_<token>` (a user API token);
 * - "shared-bearer": MEMSVC_AUTH_MODE=bearer and the shared MEMSVC_AUTH_TOKEN;
 * - "local": MEMSVC_AUTH_MODE=none, every request acts as the local user.
 */
export type CallerVia = "cookie" | "session-bearer" | "api-token" | "shared-bearer" | "local";

export interface Caller {
  userId: string;
  email: string;
  role: Role;
  via: CallerVia;
  /** SHA-256 hex of the API token, when via is "api-token". */
  tokenHash?: string;
  /** The session id, when via is "cookie" or "session-bearer". */
  sessionId?: string;
}

export interface CallerVariables {
  caller: Caller | undefined;
}

/** A signed-in dashboard session, by cookie or ns_ bearer. */
export function isSession(caller: Caller): boolean {
  return caller.via === "cookie" || caller.via === "session-bearer";
}

/** The caller, or 401 when the request carried no valid credential. */
export function callerOf(c: Context<MemsvcEnv>): Caller {
  const caller = c.get("caller");
  if (!caller) throw new HTTPException(401, { message: "unauthorized" });
  return caller;
}
