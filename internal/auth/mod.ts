/**
 * The identity wiring shared by the servers, around better-auth: the library itself with a tool's
 * names, the API key store, the caller resolution (session cookie, session bearer, API tokens, operator modes), route
 * guards, CSRF, per-account rate limits, the allowlisted passthrough to the library with its
 * OpenAPI description, the bootstrap admin and the last-admin rule.
 */
export {
  type AuthRouteAllowlist,
  authRouteAllowlist,
  LIBRARY_BODIES,
  SELF_SERVICE_ROUTES,
  userName,
} from "./allowlist.ts";
export {
  ApiKeyStore,
  type ApiKeyStoreOptions,
  type ApiKeyTable,
  generateApiKey,
  hashApiKey,
  type KeyOwner,
  type KeyOwnerCache,
  type KeyOwnerRow,
  type StoredKey,
} from "./api_keys.ts";
export { authApi, type AuthApiOptions, authLibraryError } from "./auth_api.ts";
export { authRoutes, type AuthRoutesDeps } from "./auth_routes.ts";
export {
  type Auth,
  type AuthOptions,
  createAuth,
  PASSWORD_MAX_LENGTH,
  PASSWORD_MIN_LENGTH,
} from "./better_auth.ts";
export { bootstrapAdmin, type BootstrapInput } from "./bootstrap.ts";
export { HASHED_TOKEN_PREFIX, HashedSessionTokens, sha256Hex } from "./hashed_session_tokens.ts";
export {
  type AuthEnv,
  type Caller,
  callerOf,
  type CallerVariables,
  type CallerVia,
  isSession,
  type Role,
} from "./caller.ts";
export { csrfGuard, type CsrfOptions } from "./csrf.ts";
export {
  type AccountTable,
  createIdentityTables,
  type IdentityTables,
  type SessionTable,
  type UserTable,
} from "./identity_tables.ts";
export {
  type AdminChange,
  demotedUser,
  LAST_ADMIN_CODE,
  LastAdminError,
  type LastAdminGuardOptions,
  withLastAdminGuard,
} from "./last_admin.ts";
export {
  refuseReadOnlyWrites,
  requireAdmin,
  requireApiToken,
  requireBearer,
  requireCaller,
  requireSession,
} from "./require.ts";
export {
  type ApiTokenResolver,
  type AuthMode,
  resolveCaller,
  type ResolveCallerOptions,
  sessionHeaders,
} from "./resolve_caller.ts";
