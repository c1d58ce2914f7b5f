/**
 * Passkeys through the identity library's passkey plugin (WebAuthn, @simplewebauthn/server): a
 * signed-in user registers one (`GET /api/auth/passkey/generate-register-options`, then
 * `POST /api/auth/passkey/verify-registration`), and later signs in with it
 * (`GET .../generate-authenticate-options`, `POST .../verify-authentication`), which sets the session
 * cookie. The relying party is VAULT_BASE_URL: its host name is the RP ID (so it must be a domain
 * name such as `localhost` or `vault.example.com`, never an IP address, as WebAuthn requires) and
 * its origin the only one accepted.
 */
import "./reflect_metadata.ts";
import { passkey } from "@better-auth/passkey";
import type { BetterAuthPlugin } from "better-auth";

export function vaultPasskeys(baseUrl: string): BetterAuthPlugin {
  const url = new URL(baseUrl);
  return passkey({ rpID: url.hostname, rpName: "vault", origin: url.origin }) as unknown as BetterAuthPlugin;
}
