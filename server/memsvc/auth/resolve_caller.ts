/**
 * The one caller-resolution middleware for /v1, /mcp and /api/auth. It reads, in order: the
 * operator modes (none: the local user; bearer: the shared MEMSVC_AUTH_TOKEN), `Bearer nm_…` API
 * tokens, `Bearer ns_…` session tokens, and the session cookie. A credential that is present but
 * invalid (unknown, revoked, expired, a banned user's) is a 401 at once, never a fall-through to a
 * weaker identity. Requests with no credential continue with no caller; guards decide.
 */
import type { MiddlewareHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import { timingSafeEqual } from "node:crypto";
import type { MemsvcEnv } from "../env.ts";
import type { TokenStore } from "../tokens/api_tokens.ts";
import type { Auth } from "./better_auth.ts";
import type { Caller } from "./caller.ts";

export type AuthMode = "user" | "bearer" | "none";

export interface ResolveCallerOptions {
  mode: AuthMode;
  auth?: Auth;
  tokens?: TokenStore;
  /** MEMSVC_AUTH_TOKEN, in bearer mode. */
  sharedToken?: string;
  /** The implicit user of the bearer and none modes. */
  operator?: Omit<Caller, "via">;
}

const unauthorized = () => new HTTPException(401, { message: "unauthorized" });

export function resolveCaller(options: ResolveCallerOptions): MiddlewareHandler<MemsvcEnv> {
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

  if (bearer?.startsWith("nm_")) {
    const found = await options.tokens!.resolve(bearer);
    if (!found) throw unauthorized();
    return {
      userId: found.userId,
      email: found.email,
      role: found.role,
      via: "api-token",
      tokenHash: found.tokenHash,
    };
  }
  if (bearer !== undefined && !bearer.startsWith("ns_")) throw unauthorized();
  const viaBearer = bearer !== undefined;
  if (!viaBearer && !/(^|;\s*)(__Secure-)?memsvc\.session_token=/.test(headers.get("cookie") ?? "")) {
    return undefined;
  }
  const session = await options.auth!.api.getSession({ headers: sessionHeaders(headers) });
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

/**
 * Headers for the identity library: `Bearer ns_<token>` becomes the plain session token its bearer
 * plugin reads; any other Authorization header is dropped so an API token never reaches it.
 */
export function sessionHeaders(headers: Headers): Headers {
  const out = new Headers(headers);
  const auth = headers.get("authorization") ?? "";
  const m = /^Bearer\s+ns_(\S+)\s*$/i.exec(auth);
  if (m) out.set("authorization", `Bearer ${m[1]}`);
  else out.delete("authorization");
  return out;
}

function sameSecret(given: string, expected: string): boolean {
  const a = new TextEncoder().encode(given);
  const b = new TextEncoder().encode(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
