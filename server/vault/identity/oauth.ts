/**
 * Sign-in with GitHub and Google through the identity library's own social providers, with every
 * endpoint configurable (GitHub Enterprise, a Google-compatible OIDC provider, or a local provider
 * in tests). The library's providers already take `authorizationEndpoint` and `getUserInfo`; their
 * token endpoints are fixed, so a small plugin points the code exchange at the configured one.
 * Sign-in is `POST /api/auth/sign-in/social {provider, callbackURL, additionalData?: {inviteCode}}`
 * and the provider redirects back to `/api/auth/callback/<provider>`.
 *
 * A first OAuth sign-in creates the account under the vault's registration rules: the vault must be
 * founded with the email sign-up first; then open mode takes anyone, invite-only needs
 * `additionalData.inviteCode`, claimed atomically like the email sign-up
 * (a claimed code is marked used before the user is inserted; it names the user right after).
 */
import type { BetterAuthOptions, BetterAuthPlugin } from "better-auth";
import { APIError, getOAuthState } from "better-auth/api";
import { validateAuthorizationCode } from "@better-auth/core/oauth2";
import { type Kysely, sql } from "kysely";
import type { VaultConfig } from "../config.ts";
import type { VaultDatabase } from "../store/db.ts";

interface Endpoints {
  clientId: string;
  clientSecret: string;
  authorizationEndpoint: string;
  tokenEndpoint: string;
}

interface GitHubEndpoints extends Endpoints {
  /** Base of the REST API: `<api>/user` and `<api>/user/emails`. */
  apiUrl: string;
}

interface GoogleEndpoints extends Endpoints {
  /** The OpenID Connect userinfo endpoint. */
  userInfoEndpoint: string;
}

export interface OAuthConfig {
  github?: GitHubEndpoints;
  google?: GoogleEndpoints;
}

/** The configured providers from the environment; a provider needs its client id and secret. */
export function oauthConfigOf(config: VaultConfig): OAuthConfig {
  const out: OAuthConfig = {};
  if (config.VAULT_GITHUB_CLIENT_ID && config.VAULT_GITHUB_CLIENT_SECRET) {
    out.github = {
      clientId: config.VAULT_GITHUB_CLIENT_ID,
      clientSecret: config.VAULT_GITHUB_CLIENT_SECRET,
      authorizationEndpoint: config.VAULT_GITHUB_AUTHORIZATION_URL,
      tokenEndpoint: config.VAULT_GITHUB_TOKEN_URL,
      apiUrl: config.VAULT_GITHUB_API_URL.replace(/\/+$/, ""),
    };
  }
  if (config.VAULT_GOOGLE_CLIENT_ID && config.VAULT_GOOGLE_CLIENT_SECRET) {
    out.google = {
      clientId: config.VAULT_GOOGLE_CLIENT_ID,
      clientSecret: config.VAULT_GOOGLE_CLIENT_SECRET,
      authorizationEndpoint: config.VAULT_GOOGLE_AUTHORIZATION_URL,
      tokenEndpoint: config.VAULT_GOOGLE_TOKEN_URL,
      userInfoEndpoint: config.VAULT_GOOGLE_USERINFO_URL,
    };
  }
  return out;
}

async function getJson(url: string, accessToken: string): Promise<unknown> {
  const res = await fetch(url, {
    headers: { authorization: `Bearer ${accessToken}`, accept: "application/json", "user-agent": "vault" },
    redirect: "error",
  });
  if (!res.ok) throw new Error(`${new URL(url).pathname} answered ${res.status}`);
  return await res.json();
}

interface GitHubUser {
  id: number;
  login: string;
  name: string | null;
  email: string | null;
  avatar_url?: string;
}

interface GitHubEmail {
  email: string;
  primary: boolean;
  verified: boolean;
}

interface GoogleUserInfo {
  sub: string;
  email?: string;
  email_verified?: boolean;
  name?: string;
  picture?: string;
}

/** The library's socialProviders options for what is configured. */
export function socialProvidersOf(oauth: OAuthConfig): BetterAuthOptions["socialProviders"] {
  const providers: NonNullable<BetterAuthOptions["socialProviders"]> = {};
  const gh = oauth.github;
  if (gh) {
    providers.github = {
      clientId: gh.clientId,
      clientSecret: gh.clientSecret,
      authorizationEndpoint: gh.authorizationEndpoint,
      // GitHub's documented REST answers: GET /user, and GET /user/emails when the email is private.
      getUserInfo: async (token) => {
        const profile = await getJson(`${gh.apiUrl}/user`, token.accessToken!) as GitHubUser;
        const emails = await getJson(`${gh.apiUrl}/user/emails`, token.accessToken!).catch(
          () => [],
        ) as GitHubEmail[];
        const email = profile.email ?? (emails.find((e) => e.primary) ?? emails[0])?.email;
        if (!email) return null;
        return {
          user: {
            name: profile.name || profile.login,
            email,
            image: profile.avatar_url,
            emailVerified: emails.find((e) => e.email === email)?.verified ?? false,
          },
          // The account is keyed by the provider's own subject: GitHub's numeric id, Google's `sub`.
          data: profile as never,
        };
      },
    };
  }
  const go = oauth.google;
  if (go) {
    providers.google = {
      clientId: go.clientId,
      clientSecret: go.clientSecret,
      authorizationEndpoint: go.authorizationEndpoint,
      // The OpenID Connect userinfo endpoint rather than the ID token, whose keys are Google's own.
      getUserInfo: async (token) => {
        const info = await getJson(go.userInfoEndpoint, token.accessToken!) as GoogleUserInfo;
        if (!info.email) return null;
        return {
          user: {
            name: info.name ?? info.email,
            email: info.email,
            image: info.picture,
            emailVerified: info.email_verified ?? false,
          },
          data: info as never,
        };
      },
    };
  }
  return providers;
}

/** Points the library's GitHub and Google code exchange at the configured token endpoints. */
export function oauthEndpointsPlugin(oauth: OAuthConfig): BetterAuthPlugin {
  return {
    id: "vault-oauth-endpoints",
    init(ctx) {
      const socialProviders = ctx.socialProviders.map((provider) => {
        const conf = provider.id === "github"
          ? oauth.github
          : provider.id === "google"
          ? oauth.google
          : undefined;
        if (!conf) return provider;
        return {
          ...provider,
          validateAuthorizationCode: ({ code, codeVerifier, redirectURI }) =>
            validateAuthorizationCode({
              code,
              codeVerifier,
              redirectURI,
              options: { clientId: conf.clientId, clientSecret: conf.clientSecret },
              tokenEndpoint: conf.tokenEndpoint,
            }),
        } as typeof provider;
      });
      return { context: { socialProviders } };
    },
  };
}

/**
 * The registration rules for accounts the library creates on an OAuth sign-in: never the founding
 * account; invite-only needs a valid code in `additionalData`.
 */
export function oauthRegistrationHooks(db: Kysely<VaultDatabase>) {
  const claimedBy = new Map<string, string>();
  return {
    async before(user: Record<string, unknown>): Promise<{ data: Record<string, unknown> } | undefined> {
      const mode = await db.selectFrom("settings").select("value").where("key", "=", "registration_mode")
        .executeTakeFirst();
      const first = (await db.selectFrom("user").select("id").limit(1).executeTakeFirst()) === undefined;
      // Founding needs the registration lock the email sign-up takes in its transaction; the library
      // inserts OAuth users in statements of its own, so two racing founders could both be admin.
      if (first) {
        throw new APIError("FORBIDDEN", {
          message: "the vault has no account yet: found it with the email sign-up first",
          code: "FOUNDER_REQUIRED",
        });
      }
      const state = await getOAuthState().catch(() => null);
      const inviteCode = (state as { inviteCode?: unknown } | null)?.inviteCode ??
        (state as { additionalData?: { inviteCode?: unknown } } | null)?.additionalData?.inviteCode;
      if (mode?.value !== "invite-only" && inviteCode === undefined) return undefined;
      if (typeof inviteCode !== "string" || !inviteCode) {
        throw new APIError("FORBIDDEN", {
          message: "registration needs an invite code",
          code: "INVITE_REQUIRED",
        });
      }
      const claimed = await db.updateTable("invite_codes").set({ used_at: new Date() })
        .where("code", "=", inviteCode).where("used_at", "is", null).where("revoked_at", "is", null)
        .where((eb) => eb.or([eb("expires_at", "is", null), eb("expires_at", ">", sql<Date>`now()`)]))
        .returning("id").executeTakeFirst();
      if (!claimed) {
        throw new APIError("FORBIDDEN", {
          message: "the invite code is unknown, used, revoked or expired",
          code: "INVALID_INVITE",
        });
      }
      claimedBy.set(String(user.email).toLowerCase(), claimed.id);
      return undefined;
    },
    async after(user: Record<string, unknown> & { id: string }) {
      const key = String(user.email).toLowerCase();
      const id = claimedBy.get(key);
      if (!id) return;
      claimedBy.delete(key);
      await db.updateTable("invite_codes").set({ used_by: user.id }).where("id", "=", id).execute();
    },
  };
}
