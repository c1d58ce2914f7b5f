/**
 * An OpenID Connect relying party for the authorization code flow with PKCE (S256), state and nonce:
 * discovery, the authorization URL, the code exchange, and the ID token verified against the issuer's
 * JWKS (signature, iss, aud, exp, nonce, azp). No refresh token is requested or kept.
 *
 * @example
 * const oidc = await OidcClient.discover({ issuer, clientId, clientSecret, redirectUrl });
 * const start = await oidc.startSignIn();           // keep state, nonce and codeVerifier (sealed cookie)
 * redirect(start.url);
 * // ... at the redirect URL:
 * const { claims } = await oidc.finishSignIn(new URL(req.url), start);
 */
import { createHash, randomBytes } from "node:crypto";
import { createRemoteJWKSet, type JWTPayload, jwtVerify } from "jose";

export interface OidcClientOptions {
  /** The issuer URL, exactly as its tokens' `iss`. */
  issuer: string;
  clientId: string;
  /** Sent with HTTP Basic authentication when set (a confidential client); else a public client. */
  clientSecret?: string;
  /** Where the provider sends the browser back, registered with the provider. */
  redirectUrl: string;
  /** Default: openid profile email groups. */
  scopes?: string[];
  /** For tests and custom CAs. */
  fetch?: typeof fetch;
}

export interface ProviderMetadata {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  jwks_uri: string;
  code_challenge_methods_supported?: string[];
}

/** What the caller keeps between startSignIn and finishSignIn (never shown to the browser in clear). */
export interface PendingSignIn {
  state: string;
  nonce: string;
  codeVerifier: string;
}

export interface SignedIn {
  idToken: string;
  claims: JWTPayload & { nonce?: string; groups?: unknown; email?: string; preferred_username?: string };
  /** ms since the epoch: the ID token's exp. */
  expiresAt: number;
}

export class OidcError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "OidcError";
  }
}

const random = () => randomBytes(32).toString("base64url");
export const pkceChallenge = (verifier: string) => createHash("sha256").update(verifier).digest("base64url");

export class OidcClient {
  private readonly jwks: ReturnType<typeof createRemoteJWKSet>;

  private constructor(readonly options: OidcClientOptions, readonly metadata: ProviderMetadata) {
    this.jwks = createRemoteJWKSet(new URL(metadata.jwks_uri));
  }

  /** Reads the issuer's discovery document; its `issuer` must equal the configured one. */
  static async discover(options: OidcClientOptions): Promise<OidcClient> {
    const doFetch = options.fetch ?? fetch;
    const url = `${options.issuer.replace(/\/+$/, "")}/.well-known/openid-configuration`;
    const res = await doFetch(url, { redirect: "error" });
    if (!res.ok) throw new OidcError(`OIDC discovery at ${url} answered ${res.status}`);
    const metadata = await res.json() as ProviderMetadata;
    if (metadata.issuer !== options.issuer) {
      throw new OidcError(`OIDC discovery names issuer ${metadata.issuer}, not ${options.issuer}`);
    }
    for (const field of ["authorization_endpoint", "token_endpoint", "jwks_uri"] as const) {
      if (typeof metadata[field] !== "string") throw new OidcError(`OIDC discovery has no ${field}`);
    }
    const methods = metadata.code_challenge_methods_supported;
    if (methods && !methods.includes("S256")) {
      throw new OidcError("the OIDC provider does not support PKCE S256");
    }
    return new OidcClient(options, metadata);
  }

  /** A new state, nonce and PKCE verifier, and the URL that sends the browser to the provider. */
  startSignIn(): PendingSignIn & { url: string } {
    const pending = { state: random(), nonce: random(), codeVerifier: random() };
    const url = new URL(this.metadata.authorization_endpoint);
    url.searchParams.set("response_type", "code");
    url.searchParams.set("client_id", this.options.clientId);
    url.searchParams.set("redirect_uri", this.options.redirectUrl);
    url.searchParams.set(
      "scope",
      (this.options.scopes ?? ["openid", "profile", "email", "groups"]).join(" "),
    );
    url.searchParams.set("state", pending.state);
    url.searchParams.set("nonce", pending.nonce);
    url.searchParams.set("code_challenge", pkceChallenge(pending.codeVerifier));
    url.searchParams.set("code_challenge_method", "S256");
    return { ...pending, url: url.toString() };
  }

  /** Checks the callback's state, exchanges its code, and verifies the ID token. */
  async finishSignIn(callback: URL, pending: PendingSignIn): Promise<SignedIn> {
    const error = callback.searchParams.get("error");
    if (error) throw new OidcError(`the OIDC provider refused the sign-in: ${error}`);
    if (!pending.state || callback.searchParams.get("state") !== pending.state) {
      throw new OidcError("the sign-in state does not match (start again)");
    }
    const code = callback.searchParams.get("code");
    if (!code) throw new OidcError("the OIDC callback has no code");
    const form = new URLSearchParams({
      grant_type: "authorization_code",
      code,
      redirect_uri: this.options.redirectUrl,
      code_verifier: pending.codeVerifier,
    });
    const headers: Record<string, string> = {
      "content-type": "application/x-www-form-urlencoded",
      accept: "application/json",
    };
    if (this.options.clientSecret !== undefined) {
      const enc = (s: string) => encodeURIComponent(s);
      headers.authorization = `Basic ${
        Buffer.from(`${enc(this.options.clientId)}:${enc(this.options.clientSecret)}`).toString("base64")
      }`;
    } else form.set("client_id", this.options.clientId);
    const res = await (this.options.fetch ?? fetch)(this.metadata.token_endpoint, {
      method: "POST",
      headers,
      body: form,
      redirect: "error",
    });
    const body = await res.json().catch(() => ({})) as { id_token?: string; error?: string };
    if (!res.ok) throw new OidcError(`the OIDC token endpoint refused the code: ${body.error ?? res.status}`);
    if (typeof body.id_token !== "string") throw new OidcError("the OIDC token response has no id_token");
    return await this.verifyIdToken(body.id_token, pending.nonce);
  }

  /** Verifies signature (issuer's JWKS), iss, aud, exp and nonce. */
  async verifyIdToken(idToken: string, nonce: string): Promise<SignedIn> {
    let claims: SignedIn["claims"];
    try {
      ({ payload: claims } = await jwtVerify(idToken, this.jwks, {
        issuer: this.options.issuer,
        audience: this.options.clientId,
        requiredClaims: ["exp", "sub"],
      }));
    } catch (err) {
      throw new OidcError(`the ID token is not valid: ${(err as Error).message}`);
    }
    if (claims.nonce !== nonce) throw new OidcError("the ID token's nonce does not match");
    if (Array.isArray(claims.aud) && claims.aud.length > 1 && claims.azp !== this.options.clientId) {
      throw new OidcError("the ID token was issued to another party (azp)");
    }
    return { idToken, claims, expiresAt: claims.exp! * 1000 };
  }
}
