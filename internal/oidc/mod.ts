/** OpenID Connect sign-in for our web apps (gitsync's console, edgectl's web): code flow with PKCE. */
export {
  OidcClient,
  type OidcClientOptions,
  OidcError,
  type PendingSignIn,
  pkceChallenge,
  type ProviderMetadata,
  type SignedIn,
} from "./client.ts";
