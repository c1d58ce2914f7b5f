/**
 * Route guards, one per kind of access (internal/openapi's mountRoute applies the one a route
 * declares). The rules, documented per tool (docs/memsvc.md, docs/vault.md):
 * - routes that manage the account need a signed-in session: an API token cannot mint more tokens;
 * - admin routes need an admin's session: a leaked API token of an admin must not administer the
 *   service (API tokens sit in agent-host config files);
 * - the operator modes (a shared bearer, or no authentication) stand for the operator and pass
 *   every guard.
 */
import type { MiddlewareHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import { type AuthEnv, type Caller, callerOf, isSession } from "./caller.ts";

const isOperator = (caller: Caller) => caller.via === "shared-bearer" || caller.via === "local";

/** 401 unless the request carries a valid credential of any kind. */
export function requireCaller(): MiddlewareHandler<AuthEnv> {
  return async (c, next) => {
    callerOf(c);
    await next();
  };
}

/** 401 without credentials; 403 for an API token. */
export function requireSession(): MiddlewareHandler<AuthEnv> {
  return async (c, next) => {
    const caller = callerOf(c);
    if (!isSession(caller) && !isOperator(caller)) {
      throw new HTTPException(403, { message: "this route needs a signed-in session, not an API token" });
    }
    await next();
  };
}

/** 401 without credentials; 403 unless an admin's session. */
export function requireAdmin(): MiddlewareHandler<AuthEnv> {
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

/** 401 without credentials; 403 unless an API token (`message` says which one is needed). */
export function requireApiToken(message: string): MiddlewareHandler<AuthEnv> {
  return async (c, next) => {
    const caller = callerOf(c);
    if (caller.via !== "api-token" || !caller.tokenHash) throw new HTTPException(403, { message });
    await next();
  };
}

/**
 * 401 without credentials or with a cookie (`message` says which bearer to send): MCP hosts
 * authenticate with a bearer, never a browser cookie.
 */
export function requireBearer(message: string): MiddlewareHandler<AuthEnv> {
  return async (c, next) => {
    if (callerOf(c).via === "cookie") throw new HTTPException(401, { message });
    await next();
  };
}

/**
 * 403 for an API token scoped to reading when the request changes something (any method but GET,
 * HEAD and OPTIONS). Requests without a caller or with an unscoped one pass: the route's own guard
 * decides about them.
 */
export function refuseReadOnlyWrites(): MiddlewareHandler<AuthEnv> {
  return async (c, next) => {
    if (c.get("caller")?.scope === "read" && !["GET", "HEAD", "OPTIONS"].includes(c.req.method)) {
      throw new HTTPException(403, { message: "this API key is read-only" });
    }
    await next();
  };
}
