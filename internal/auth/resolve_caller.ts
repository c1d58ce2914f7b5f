/**
 * The one caller-resolution middleware of a tool's API. It reads, in order: the operator modes
 * (none: the local user; bearer: a shared token), `Bearer <API token prefix>…` API tokens,
 * `Bearer <session prefix>…` session tokens, and the session cookie. A credential that is present but
 * invalid (unknown, revoked, expired, a banned user's) is a 401 at once, never a fall-through to a
 * weaker identity. Requests with no credential continue with no caller; guards decide.
 */
import type { MiddlewareHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import { timingSafeEqual } from "node:crypto";
import type { Auth } from "./better_auth.ts";
import type { AuthEnv, Caller } from "./caller.ts";

export type AuthMode = "user" | "bearer" | "none";

/** A tool's API tokens: the prefix that marks them, and their lookup (undefined: unknown or revoked). */
export interface ApiTokenResolver {
  prefix: string;
  resolve(token: string): Promise<Omit<Caller, "via"> | undefined>;
}

export interface ResolveCallerOptions {
  mode: AuthMode;
  auth?: Auth;
  /** The session cookie's name without the `__Secure-` prefix, e.g. "memsvc.session_token". */
  sessionCookie?: string;
  apiTokens?: ApiTokenResolver;
  /**
   * The prefix of session tokens sent as a bearer (memsvc: "ns_"); undefined: sessions only by
   * cookie, and any other bearer is refused.
   */
  sessionBearerPrefix?: string;
  /** The shared operator token, in bearer mode. */
  sharedToken?: string;
  /** The implicit user of the bearer and none modes. */
  operator?: Omit<Caller, "via">;
}

const unauthorized = () => new HTTPException(401, { message: "unauthorized" });

export function resolveCaller(options: ResolveCallerOptions): MiddlewareHandler<AuthEnv> {
  return async (c, next) => {
    c.set("caller", await identify(c.req.raw.headers, options));
    await next();
  };
}

async function identify(headers: Headers, options: ResolveCallerOptions): Promise<Caller | undefined> {
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(headers.get("authorization") ?? "")?.[1];
  if (headers.has("authorization") && !bearer) throw unauthorized();

  if (options.mode === "none") return { ...options.operator!, via: "local" };
  if (options.mode === "bearer") {
    if (bearer === undefined) return undefined;
    if (!sameSecret(bearer, options.sharedToken!)) throw unauthorized();
    return { ...options.operator!, via: "shared-bearer" };
  }

  const { apiTokens, sessionBearerPrefix } = options;
  if (apiTokens && bearer?.startsWith(apiTokens.prefix)) {
    const found = await apiTokens.resolve(bearer);
    if (!found) throw unauthorized();
    return { ...found, via: "api-token" };
  }
  if (bearer !== undefined && (!sessionBearerPrefix || !bearer.startsWith(sessionBearerPrefix))) {
    throw unauthorized();
  }
  const viaBearer = bearer !== undefined;
  if (!viaBearer && !hasCookie(headers, options.sessionCookie!)) return undefined;
  const session = await options.auth!.api.getSession({
    headers: sessionHeaders(headers, sessionBearerPrefix),
  });
  if (!session) {
    if (viaBearer) throw unauthorized();
    return undefined; // a stale cookie is the same as none; sign-in replaces it
  }
  const { user } = session;
  if (user.banned && (!user.banExpires || new Date(user.banExpires) > new Date())) throw unauthorized();
  return {
    userId: user.id,
    email: user.email,
    role: user.role === "admin" ? "admin" : "user",
    via: viaBearer ? "session-bearer" : "cookie",
    sessionId: session.session.id,
  };
}

function hasCookie(headers: Headers, name: string): boolean {
  const cookies = (headers.get("cookie") ?? "").split(";").map((c) => c.trim());
  return cookies.some((c) => c.startsWith(`${name}=`) || c.startsWith(`__Secure-${name}=`));
}

/**
 * Headers for the identity library: `Bearer <sessionBearerPrefix><token>` becomes the plain
 * session token its bearer plugin reads; any other Authorization header is dropped so an API token
 * never reaches it.
 */
export function sessionHeaders(headers: Headers, sessionBearerPrefix: string | undefined): Headers {
  const out = new Headers(headers);
  const auth = /^Bearer\s+(\S+)\s*$/i.exec(headers.get("authorization") ?? "")?.[1];
  if (sessionBearerPrefix && auth?.startsWith(sessionBearerPrefix)) {
    out.set("authorization", `Bearer ${auth.slice(sessionBearerPrefix.length)}`);
  } else out.delete("authorization");
  return out;
}

function sameSecret(given: string, expected: string): boolean {
  const a = new TextEncoder().encode(given);
  const b = new TextEncoder().encode(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
