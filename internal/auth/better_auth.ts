/**
 * The identity library: better-auth with its admin and bearer plugins, on the tool's own database
 * through Kysely. It owns users, passwords, sessions and the session cookie; a tool reaches it only
 * through its allowlisted passthrough (auth_routes.ts) and `auth.api` calls.
 *
 * @example
 * const auth = createAuth({ appName: "vault", cookiePrefix: "vault", db, secret, baseURL, trustedOrigins: [], log });
 */
import { betterAuth, type BetterAuthOptions, type BetterAuthPlugin } from "better-auth";
import { APIError } from "better-auth/api";
import { admin, bearer } from "better-auth/plugins";
import type { Kysely } from "kysely";
import type { Logger } from "../log/mod.ts";
import { HashedSessionTokens } from "./hashed_session_tokens.ts";

export interface AuthOptions {
  /** The tool's name, e.g. "memsvc". */
  appName: string;
  /** Session cookies are named `<cookiePrefix>.session_token` (`__Secure-` first on https). */
  cookiePrefix: string;
  /** Where the library's routes are mounted. Default /api/auth. */
  basePath?: string;
  // deno-lint-ignore no-explicit-any
  db: Kysely<any>;
  /** Signs session cookies (e.g. MEMSVC_COOKIE_SECRET, BETTER_AUTH_SECRET). */
  secret: string;
  /** The public origin; the trusted origin for the library's own CSRF checks. */
  baseURL: string;
  /** Extra origins trusted for credentialed calls. */
  trustedOrigins: readonly string[];
  /** Store session tokens as their SHA-256 (hashed_session_tokens.ts). Default false. */
  hashSessionTokens?: boolean;
  /** User ids the library must never hand out (memsvc: "p_", its project ids). */
  reservedUserIdPrefix?: { prefix: string; reason: string };
  /** Sign-in with OAuth providers: the library's `socialProviders` options (none by default). */
  socialProviders?: BetterAuthOptions["socialProviders"];
  /** More library plugins (the vault's OAuth endpoints). */
  plugins?: BetterAuthPlugin[];
  /**
   * Users the library creates itself (an OAuth sign-up): `before` may refuse by throwing an
   * APIError or change the user; `after` sees the stored user.
   */
  userCreateHooks?: {
    before?: (user: Record<string, unknown>) => Promise<{ data: Record<string, unknown> } | void>;
    after?: (user: Record<string, unknown> & { id: string }) => Promise<void>;
  };
  log: Logger;
}

export const PASSWORD_MIN_LENGTH = 10;
export const PASSWORD_MAX_LENGTH = 256;

export function createAuth(options: AuthOptions) {
  const { log, reservedUserIdPrefix: reserved } = options;
  return betterAuth({
    appName: options.appName,
    baseURL: options.baseURL,
    basePath: options.basePath ?? "/api/auth",
    secret: options.secret,
    database: {
      db: options.hashSessionTokens ? options.db.withPlugin(new HashedSessionTokens()) : options.db,
      type: "postgres",
    },
    trustedOrigins: [new URL(options.baseURL).origin, ...options.trustedOrigins],
    emailAndPassword: {
      enabled: true,
      // The first admin comes from the bootstrap; everyone else is created by an admin or by the
      // tool's own registration route (the vault's claims an invite in the same transaction).
      disableSignUp: true,
      minPasswordLength: PASSWORD_MIN_LENGTH,
      maxPasswordLength: PASSWORD_MAX_LENGTH,
    },
    session: {
      expiresIn: 60 * 60 * 24 * 7,
      updateAge: 60 * 60 * 24,
    },
    // The tools apply their own per-account limits (auth_routes.ts); the library's are per IP only.
    rateLimit: { enabled: false },
    telemetry: { enabled: false },
    advanced: {
      cookiePrefix: options.cookiePrefix,
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
          before: async (user) => {
            if (reserved && typeof user.id === "string" && user.id.startsWith(reserved.prefix)) {
              throw new APIError("BAD_REQUEST", {
                message: `user ids starting with ${reserved.prefix} are reserved for ${reserved.reason}`,
                code: "RESERVED_USER_ID",
              });
            }
            const changed = await options.userCreateHooks?.before?.(user);
            return { data: changed ? { ...user, ...changed.data } : user };
          },
          after: async (user) => {
            await options.userCreateHooks?.after?.(user);
          },
        },
      },
    },
    ...(options.socialProviders ? { socialProviders: options.socialProviders } : {}),
    plugins: [admin({ defaultRole: "user", adminRoles: ["admin"] }), bearer(), ...(options.plugins ?? [])],
  });
}

export type Auth = ReturnType<typeof createAuth>;
