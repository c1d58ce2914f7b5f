/**
 * The identity-library paths a tool passes through, in one place per tool. Anything else under the
 * library's mount answers 404 (and is logged), so a library upgrade that adds endpoints exposes
 * nothing until the tool lists it.
 *
 * @example
 * const allowlist = authRouteAllowlist({ selfService: ["POST /sign-in/email"], admin: [] });
 * allowlist.allowed("post", "/sign-in/email/"); // "POST /sign-in/email"
 */

/** What a browser app and scripts need for their own account and session; public sign-up is absent. */
export const SELF_SERVICE_ROUTES = [
  "POST /sign-in/email",
  "POST /sign-out",
  "GET /get-session",
  "GET /list-sessions",
  "POST /revoke-session",
  "POST /revoke-other-sessions",
  "POST /change-password",
  "POST /update-user",
] as const;

export interface AuthRouteAllowlist {
  /** Self-service routes (own account and session), `METHOD /path` below the mount. */
  readonly selfService: readonly string[];
  /** The library's admin routes the tool exposes. */
  readonly admin: readonly string[];
  /** The allowlisted route for a method and a path below the mount, or undefined. */
  allowed(method: string, subpath: string): string | undefined;
  isAdmin(route: string): boolean;
}

export function authRouteAllowlist(
  routes: { selfService: readonly string[]; admin: readonly string[] },
): AuthRouteAllowlist {
  const all = new Set([...routes.selfService, ...routes.admin]);
  const admin = new Set(routes.admin);
  return {
    selfService: routes.selfService,
    admin: routes.admin,
    allowed(method, subpath) {
      const key = `${method.toUpperCase()} ${subpath.replace(/\/+$/, "")}`;
      return all.has(key) ? key : undefined;
    },
    isAdmin: (route) => admin.has(route),
  };
}
