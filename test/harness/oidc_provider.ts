/**
 * A local OpenID Connect provider that speaks the real protocol, for sign-in tests: discovery
 * document, JWKS (RS256 key made at start), /authorize (code flow; signs in `nextUser` at once, as a
 * provider with a remembered session does) and /token (checks client credentials, redirect_uri and
 * the PKCE S256 verifier; codes are single-use). `misbehave` makes it issue a bad ID token so tests
 * can see the relying party refuse it.
 *
 * @example
 * const idp = await startOidcProvider({ clientId: "console", clientSecret: "s", redirectUris: [cb] });
 * idp.nextUser = { sub: "alice", groups: ["dev"] };
 * ...
 * await idp.stop();
 */
import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";

export interface OidcUser {
  sub: string;
  email?: string;
  groups?: string[];
}

export type Misbehaviour = "wrong-nonce" | "wrong-audience" | "wrong-key" | "expired" | "wrong-issuer";

export interface OidcProvider {
  issuer: string;
  nextUser: OidcUser;
  misbehave: Misbehaviour | undefined;
  /** ID token lifetime in seconds (default 3600). */
  idTokenSeconds: number;
  /** Token requests seen, with whether PKCE matched. */
  tokenRequests: { pkce: boolean; grantType: string | null }[];
  stop(): Promise<void>;
}

export interface OidcProviderOptions {
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
}

interface Grant {
  user: OidcUser;
  nonce: string;
  challenge: string;
  redirectUri: string;
  clientId: string;
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  let body = "";
  for await (const chunk of req) body += chunk;
  return new URLSearchParams(body);
}

export async function startOidcProvider(options: OidcProviderOptions): Promise<OidcProvider> {
  const { privateKey, publicKey } = await generateKeyPair("RS256");
  const other = await generateKeyPair("RS256");
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid: "k1", alg: "RS256", use: "sig" };
  const codes = new Map<string, Grant>();
  let counter = 0;

  const json = (res: ServerResponse, status: number, body: unknown) =>
    res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store" })
      .end(JSON.stringify(body));

  const server = createServer(async (req, res) => {
    const url = new URL(req.url!, provider.issuer);
    try {
      if (url.pathname === "/.well-known/openid-configuration") {
        return json(res, 200, {
          issuer: provider.issuer,
          authorization_endpoint: `${provider.issuer}/authorize`,
          token_endpoint: `${provider.issuer}/token`,
          jwks_uri: `${provider.issuer}/jwks`,
          response_types_supported: ["code"],
          subject_types_supported: ["public"],
          id_token_signing_alg_values_supported: ["RS256"],
          code_challenge_methods_supported: ["S256"],
          grant_types_supported: ["authorization_code"],
          token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
        });
      }
      if (url.pathname === "/jwks") return json(res, 200, { keys: [jwk] });
      if (url.pathname === "/authorize" && req.method === "GET") {
        const q = url.searchParams;
        const redirectUri = q.get("redirect_uri") ?? "";
        if (q.get("client_id") !== options.clientId || !options.redirectUris.includes(redirectUri)) {
          return json(res, 400, {
            error: "invalid_request",
            error_description: "unknown client or redirect_uri",
          });
        }
        const back = new URL(redirectUri);
        const state = q.get("state");
        if (state) back.searchParams.set("state", state);
        if (
          q.get("response_type") !== "code" || q.get("code_challenge_method") !== "S256" ||
          !q.get("code_challenge")
        ) {
          back.searchParams.set("error", "invalid_request");
        } else if (!q.get("scope")?.split(" ").includes("openid")) {
          back.searchParams.set("error", "invalid_scope");
        } else {
          const code = `code-${++counter}-${crypto.randomUUID()}`;
          codes.set(code, {
            user: provider.nextUser,
            nonce: q.get("nonce") ?? "",
            challenge: q.get("code_challenge")!,
            redirectUri,
            clientId: options.clientId,
          });
          back.searchParams.set("code", code);
        }
        res.writeHead(302, { location: back.toString() }).end();
        return;
      }
      if (url.pathname === "/token" && req.method === "POST") {
        const form = await readForm(req);
        let clientId = form.get("client_id");
        let secret = form.get("client_secret");
        const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? "");
        if (basic) {
          const [id, s] = Buffer.from(basic[1]!, "base64").toString().split(":").map(decodeURIComponent);
          clientId = id ?? null;
          secret = s ?? null;
        }
        const code = form.get("code") ?? "";
        const grant = codes.get(code);
        codes.delete(code);
        const verifier = form.get("code_verifier") ?? "";
        const pkce = !!grant && createHash("sha256").update(verifier).digest("base64url") === grant.challenge;
        provider.tokenRequests.push({ pkce, grantType: form.get("grant_type") });
        if (clientId !== options.clientId || secret !== options.clientSecret) {
          return json(res, 401, { error: "invalid_client" });
        }
        if (
          form.get("grant_type") !== "authorization_code" || !grant ||
          grant.redirectUri !== form.get("redirect_uri")
        ) {
          return json(res, 400, { error: "invalid_grant" });
        }
        if (!pkce) {
          return json(res, 400, { error: "invalid_grant", error_description: "PKCE verification failed" });
        }
        const now = Math.floor(Date.now() / 1000);
        const bad = provider.misbehave;
        const idToken = await new SignJWT({
          nonce: bad === "wrong-nonce" ? "not-the-nonce" : grant.nonce,
          ...(grant.user.email ? { email: grant.user.email } : {}),
          ...(grant.user.groups ? { groups: grant.user.groups } : {}),
        })
          .setProtectedHeader({ alg: "RS256", kid: "k1" })
          .setIssuer(bad === "wrong-issuer" ? `${provider.issuer}/other` : provider.issuer)
          .setSubject(grant.user.sub)
          .setAudience(bad === "wrong-audience" ? "someone-else" : grant.clientId)
          .setIssuedAt(bad === "expired" ? now - 7200 : now)
          .setExpirationTime(bad === "expired" ? now - 3600 : now + provider.idTokenSeconds)
          .sign(bad === "wrong-key" ? other.privateKey : privateKey);
        return json(res, 200, {
          access_token: `at-${counter}`,
          token_type: "Bearer",
          expires_in: 3600,
          id_token: idToken,
        });
      }
      return json(res, 404, { error: "not_found" });
    } catch (err) {
      return json(res, 500, { error: "server_error", error_description: String(err) });
    }
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const provider: OidcProvider = {
    issuer: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    nextUser: { sub: "alice" },
    misbehave: undefined,
    idTokenSeconds: 3600,
    tokenRequests: [],
    stop: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
  return provider;
}
