/**
 * The identity library: better-auth with its admin and bearer plugins, on memsvc's own database
 * through Kysely. It owns users, passwords, sessions and the session cookie; memsvc reaches it only
 * through the allowlisted passthrough (auth_routes.ts) and `auth.api` calls.
 */
import { betterAuth } from "better-auth";
import { APIError } from "better-auth/api";
import { admin, bearer } from "better-auth/plugins";
import type { Kysely } from "kysely";
import type { Logger } from "../../../internal/log/mod.ts";

export interface AuthOptions {
  // deno-lint-ignore no-explicit-any
  db: Kysely<any>;
  /** MEMSVC_COOKIE_SECRET: signs session cookies. */
  secret: string;
  /** MEMSVC_BASE_URL: the public origin; the trusted origin for CSRF checks. */
  baseURL: string;
  /** Extra origins trusted for credentialed calls (MEMSVC_CORS_ORIGINS). */
  trustedOrigins: readonly string[];
  log: Logger;
}

/** Project collections use ids starting with p_, so user ids must never do. */
export const RESERVED_USER_ID_PREFIX = "p_";

export const PASSWORD_MIN_LENGTH = 10;
export const PASSWORD_MAX_LENGTH = 256;

export function createAuth(options: AuthOptions) {
  const { log } = options;
  return betterAuth({
    appName: "memsvc",
    baseURL: options.baseURL,
    basePath: "/api/auth",
    secret: options.secret,
    database: { db: options.db, type: "postgres" },
    trustedOrigins: [new URL(options.baseURL).origin, ...options.trustedOrigins],
    emailAndPassword: {
      enabled: true,
      // The first admin comes from the bootstrap; everyone else is created by an admin.
      disableSignUp: true,
      minPasswordLength: PASSWORD_MIN_LENGTH,
      maxPasswordLength: PASSWORD_MAX_LENGTH,
    },
    session: {
      expiresIn: 60 * 60 * 24 * 7,
      updateAge: 60 * 60 * 24,
    },
    // memsvc applies its own per-account limits (auth_routes.ts); the library's are per IP only.
    rateLimit: { enabled: false },
    telemetry: { enabled: false },
    advanced: {
      cookiePrefix: "memsvc",
      useSecureCookies: options.baseURL.startsWith("https:"),
      defaultCookieAttributes: { httpOnly: true, sameSite: "lax" },
    },
    logger: {
      level: "warn",
      log: (level, message, ...args) => {
        const fields = args.length ? { detail: args } : undefined;
        (level === "error" ? log.error : level === "warn" ? log.warn : log.debug)(`auth: ${message}`, fields);
      },
    },
    databaseHooks: {
      user: {
        create: {
          before: (user) => {
            if (typeof user.id === "string" && user.id.startsWith(RESERVED_USER_ID_PREFIX)) {
              throw new APIError("BAD_REQUEST", {
                message: `user ids starting with ${RESERVED_USER_ID_PREFIX} are reserved for projects`,
                code: "RESERVED_USER_ID",
              });
            }
            return Promise.resolve({ data: user });
          },
        },
      },
    },
    plugins: [admin({ defaultRole: "user", adminRoles: ["admin"] }), bearer()],
  });
}

export type Auth = ReturnType<typeof createAuth>;
