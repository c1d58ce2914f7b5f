/**
 * Route guards. Decisions, documented in docs/memsvc.md:
 * - Routes that manage the account (API tokens) need a dashboard session (cookie or ns_ bearer);
 *   an API token cannot mint more tokens.
 * - Admin routes need an admin's session. An admin's nm_ API token does NOT count: API tokens sit
 *   in agent-host config files, and a leaked one must not be able to administer the service.
 * - In MEMSVC_AUTH_MODE=bearer and none there are no sessions: the shared bearer and the local
 *   user stand for the operator and pass every guard.
 */
import type { MiddlewareHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import type { MemsvcEnv } from "../env.ts";
import { type Caller, callerOf, isSession } from "./caller.ts";

const isOperator = (caller: Caller) => caller.via === "shared-bearer" || caller.via === "local";

/** 401 unless the request carries a valid credential of any kind. */
export function requireCaller(): MiddlewareHandler<MemsvcEnv> {
  return async (c, next) => {
    callerOf(c);
    await next();
  };
}

/** 401 without credentials; 403 for an API token. */
export function requireSession(): MiddlewareHandler<MemsvcEnv> {
  return async (c, next) => {
    const caller = callerOf(c);
    if (!isSession(caller) && !isOperator(caller)) {
      throw new HTTPException(403, { message: "this route needs a signed-in session, not an API token" });
    }
    await next();
  };
}

/** 401 without credentials; 403 unless an admin's session. */
export function requireAdmin(): MiddlewareHandler<MemsvcEnv> {
  return async (c, next) => {
    const caller = callerOf(c);
    if (isOperator(caller)) return await next();
    if (caller.role !== "admin") throw new HTTPException(403, { message: "admin role required" });
    if (!isSession(caller)) {
      throw new HTTPException(403, {
        message: "admin routes need a signed-in admin session, not an API token",
      });
    }
    await next();
  };
}

/** 401 without credentials; 403 unless an nm_ API token (the token rotation path). */
export function requireApiToken(): MiddlewareHandler<MemsvcEnv> {
  return async (c, next) => {
    const caller = callerOf(c);
    if (caller.via !== "api-token" || !caller.tokenHash) {
      throw new HTTPException(403, { message: "rotate-token needs the nm_ API token being rotated" });
    }
    await next();
  };
}

/** 401 without credentials or with a cookie: MCP hosts authenticate with a bearer, never a browser cookie. */
export function requireBearer(): MiddlewareHandler<MemsvcEnv> {
  return async (c, next) => {
    if (callerOf(c).via === "cookie") {
      throw new HTTPException(401, { message: "MCP needs a bearer token (nm_ or ns_)" });
    }
    await next();
  };
}
