/**
 * The /api/auth paths memsvc passes to the identity library, in one place. Anything else under
 * /api/auth answers 404 (and is logged), so a library upgrade that adds endpoints exposes nothing
 * until it is listed here. Public sign-up is deliberately absent.
 */
import { authRouteAllowlist, SELF_SERVICE_ROUTES } from "../../../internal/auth/mod.ts";

/** What the dashboard and scripts need for their own account and session (internal/auth's list). */
export { SELF_SERVICE_ROUTES };

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

/** The allowlist internal/auth's passthrough and its OpenAPI description read. */
export const MEMSVC_AUTH_ROUTES = authRouteAllowlist({
  selfService: SELF_SERVICE_ROUTES,
  admin: ADMIN_ROUTES,
});
