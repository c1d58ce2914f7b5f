/**
 * The identity library with the vault's names and passkeys, and the library routes the vault passes through.
 * Accounts are created by the vault's own registration route (registration.ts), which claims an
 * invite in the same transaction; the vault's admin API (routes/admin_users.ts) manages users, so
 * none of the library's admin routes is exposed.
 */
import {
  type AuthOptions,
  authRouteAllowlist,
  createAuth,
  SELF_SERVICE_ROUTES,
} from "../../../internal/auth/mod.ts";
import { vaultPasskeys } from "./passkeys.ts";

/** The library with the vault's names; session tokens are stored only as their SHA-256. */
export function createVaultAuth(
  options: Omit<AuthOptions, "appName" | "cookiePrefix" | "hashSessionTokens">,
) {
  return createAuth({
    ...options,
    appName: "vault",
    cookiePrefix: "vault",
    hashSessionTokens: true,
    plugins: [vaultPasskeys(options.baseURL), ...(options.plugins ?? [])],
  });
}

/** The session cookie's name (on https it gets the `__Secure-` prefix). */
export const SESSION_COOKIE = "vault.session_token";

export const VAULT_AUTH_ROUTES = authRouteAllowlist({
  // revoke-session is the vault's own (routes/sessions.ts): listed sessions carry their hash.
  selfService: [
    ...SELF_SERVICE_ROUTES.filter((route) => route !== "POST /revoke-session"),
    // OAuth (GitHub, Google; identity/oauth.ts): start a sign-in, and the provider's redirect back.
    "POST /sign-in/social",
    "GET /callback/:id",
    // Passkeys (WebAuthn; identity/passkeys.ts): register one while signed in, then sign in with it.
    "GET /passkey/generate-register-options",
    "POST /passkey/verify-registration",
    "GET /passkey/generate-authenticate-options",
    "POST /passkey/verify-authentication",
    "GET /passkey/list-user-passkeys",
    "POST /passkey/delete-passkey",
  ],
  admin: [],
});
