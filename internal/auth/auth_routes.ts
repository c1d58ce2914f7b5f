/**
 * The identity library's routes behind a tool's allowlist. Before a request reaches the library
 * this layer refuses unlisted paths (404, logged), applies per-account rate limits (sign-in by
 * email, password changes by user), turns `Bearer <session prefix>…` into the library's bearer
 * form, guards admin routes and the last admin. Successful admin changes are written to the audit
 * log.
 *
 * @example
 * app.route("/", authRoutes({ auth, database, allowlist, signInLimiter, passwordLimiter, lastAdminLock: "vault:admin-change" }));
 */
import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import type { Kysely } from "kysely";
import { type AuditTables, writeAudit } from "../audit/mod.ts";
import type { Database } from "../db/mod.ts";
import type { AuthRouteAllowlist } from "./allowlist.ts";
import type { Auth } from "./better_auth.ts";
import { type AuthEnv, isSession } from "./caller.ts";
import { demotedUser, withLastAdminGuard } from "./last_admin.ts";
import { parseJsonText, type TokenBuckets, tooManyRequests } from "../http/mod.ts";
import { sessionHeaders } from "./resolve_caller.ts";

export interface AuthRoutesDeps<DB extends AuditTables> {
  auth: Auth;
  database: Database<DB>;
  allowlist: AuthRouteAllowlist;
  signInLimiter: TokenBuckets;
  passwordLimiter: TokenBuckets;
  /** The cluster-wide lock of admin changes, e.g. "memsvc:admin-change". */
  lastAdminLock: string;
  /** Where the library is mounted. Default /api/auth. */
  prefix?: string;
  /** See ResolveCallerOptions.sessionBearerPrefix. */
  sessionBearerPrefix?: string;
  /**
   * Called after a route that may have ended sessions or a user succeeded (sign-out, revocations, a
   * password change, a ban or removal), with whose: so a tool can close sockets opened with them.
   */
  onSessionsEnded?: (userId: string) => void;
}

/** Library routes that can end sessions; admin ones name the user in `userId`. */
const ENDS_SESSIONS = new Set([
  "POST /sign-out",
  "POST /revoke-session",
  "POST /revoke-other-sessions",
  "POST /revoke-sessions",
  "POST /change-password",
  "POST /admin/ban-user",
  "POST /admin/remove-user",
  "POST /admin/revoke-user-session",
  "POST /admin/revoke-user-sessions",
]);

const READ_ONLY_ADMIN = new Set(["GET /admin/list-users", "POST /admin/list-user-sessions"]);

export function authRoutes<DB extends AuditTables>(deps: AuthRoutesDeps<DB>): Hono<AuthEnv> {
  const prefix = deps.prefix ?? "/api/auth";
  const app = new Hono<AuthEnv>();
  app.all(`${prefix}/*`, async (c) => {
    const route = deps.allowlist.allowed(c.req.method, c.req.path.slice(prefix.length));
    if (!route) {
      c.get("log").warn("auth path not allowlisted", { method: c.req.method, path: c.req.path });
      return c.json({ error: "not found" }, 404);
    }
    const caller = c.get("caller");
    const adminRoute = deps.allowlist.isAdmin(route);
    const raw = c.req.method === "GET" ? "" : await c.req.text();
    const body = parseObject(raw);
    // The same guard as the tool's own admin routes, before the library sees the request, so every
    // admin route answers 401 / 403 alike whatever the library would check first.
    if (adminRoute) {
      if (!caller) throw new HTTPException(401, { message: "unauthorized" });
      // A change that can strip admin rights checks the caller's role under the last-admin lock
      // instead (last_admin.ts), so a concurrent demotion cannot turn its answer into a 403.
      const roleCheckedUnderLock = demotedUser({ route, body }) !== undefined;
      if (!isSession(caller) || (caller.role !== "admin" && !roleCheckedUnderLock)) {
        throw new HTTPException(403, { message: "admin routes need a signed-in admin session" });
      }
    }

    // Checked (400 with issues) and normalised (a trimmed name) before the library sees it.
    const schema = deps.allowlist.bodyOf(route);
    const text = schema ? JSON.stringify(parseJsonText(raw, schema)) : raw;

    const limitKey = route === "POST /sign-in/email"
      ? `sign-in:${String(body.email ?? "").trim().toLowerCase()}`
      : route === "POST /change-password"
      ? `password:${caller?.userId ?? "anonymous"}`
      : route === "POST /admin/set-user-password"
      ? `password:${String(body.userId ?? "")}`
      : undefined;
    if (limitKey) {
      const limiter = limitKey.startsWith("sign-in:") ? deps.signInLimiter : deps.passwordLimiter;
      const verdict = limiter.take(limitKey);
      if (!verdict.allowed) return tooManyRequests(c, verdict.retryAfterSeconds);
    }

    const request = new Request(c.req.url, {
      method: c.req.method,
      headers: sessionHeaders(c.req.raw.headers, deps.sessionBearerPrefix),
      body: c.req.method === "GET" ? undefined : text,
    });
    const response = await withLastAdminGuard(
      deps.database,
      { lock: deps.lastAdminLock, target: demotedUser({ route, body }), callerId: caller?.userId ?? "" },
      () => deps.auth.handler(request),
    );

    if (response.ok && deps.onSessionsEnded && ENDS_SESSIONS.has(route)) {
      const whose = adminRoute ? body.userId : caller?.userId;
      if (typeof whose === "string") deps.onSessionsEnded(whose);
    }
    if (response.ok && adminRoute && !READ_ONLY_ADMIN.has(route)) {
      await writeAudit(deps.database.db as unknown as Kysely<AuditTables>, {
        actorId: caller?.userId ?? null,
        action: `admin.${route.slice("POST /admin/".length)}`,
        target: typeof body.userId === "string"
          ? body.userId
          : typeof body.email === "string"
          ? body.email
          : null,
        requestId: c.get("requestId"),
        metadata: route === "POST /admin/set-role" ? { role: String(body.role) } : {},
      });
    }
    return response;
  });
  return app;
}

function parseObject(text: string): Record<string, unknown> {
  try {
    const value = JSON.parse(text);
    return value && typeof value === "object" && !Array.isArray(value) ? value : {};
  } catch {
    return {};
  }
}
