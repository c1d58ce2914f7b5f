/**
 * The /api/auth paths memsvc passes to the identity library, in one place. Anything else under
 * /api/auth answers 404 (and is logged), so a library upgrade that adds endpoints exposes nothing
 * until it is listed here. Public sign-up is deliberately absent.
 */

/** What the dashboard and scripts need for their own account and session. */
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

/** Exactly the 13 admin endpoints of the contract. */
export const ADMIN_ROUTES = [
  "GET /admin/list-users",
  "POST /admin/create-user",
  "POST /admin/update-user",
  "POST /admin/set-role",
  "POST /admin/set-user-password",
  "POST /admin/remove-user",
  "POST /admin/ban-user",
  "POST /admin/unban-user",
  "POST /admin/list-user-sessions",
  "POST /admin/revoke-user-session",
  "POST /admin/revoke-user-sessions",
  "POST /admin/impersonate-user",
  "POST /admin/stop-impersonating",
] as const;

export type AuthRoute = (typeof SELF_SERVICE_ROUTES)[number] | (typeof ADMIN_ROUTES)[number];

const ALLOWED = new Set<string>([...SELF_SERVICE_ROUTES, ...ADMIN_ROUTES]);

/** The allowlisted route for a method and a path below /api/auth, or undefined. */
export function allowedAuthRoute(method: string, subpath: string): AuthRoute | undefined {
  const key = `${method.toUpperCase()} ${subpath.replace(/\/+$/, "")}`;
  return ALLOWED.has(key) ? (key as AuthRoute) : undefined;
}
