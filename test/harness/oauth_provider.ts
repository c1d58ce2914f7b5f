/**
 * A local OAuth 2.0 provider for tests that speaks the real protocol the vault's sign-in uses, in
 * two dialects shaped after the providers' documented answers:
 *
 *   GitHub (docs: "Authorizing OAuth apps", REST "Users" and "Emails"):
 *     GET  /github/login/oauth/authorize     -> 302 redirect_uri?code&state
 *     POST /github/login/oauth/access_token  -> {access_token, token_type: "bearer", scope} (JSON when
 *                                               asked with Accept: application/json, else form-encoded)
 *     GET  /github/api/user                  -> {login, id, name, email: null, avatar_url, ...}
 *     GET  /github/api/user/emails           -> [{email, primary, verified, visibility}]
 *   Google (OpenID Connect):
 *     GET  /google/o/oauth2/v2/auth          -> 302 redirect_uri?code&state
 *     POST /google/token                     -> {access_token, expires_in, token_type: "Bearer", scope}
 *     GET  /google/v1/userinfo               -> {sub, name, email, email_verified, picture}
 *
 * The authorize step consents at once as `provider.user` (set it before a sign-in). Codes are single
 * use, bound to client, redirect URI and PKCE challenge (S256); the token endpoint checks the client
 * secret (form body or HTTP Basic). Every request is recorded in `requests`.
 */
import { createHash, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";

export interface ProviderUser {
  /** GitHub's numeric id / Google's `sub`. */
  id: string;
  login: string;
  name: string;
  email: string;
  /** GitHub: keep the email private on /user, as many accounts do (it then comes from /user/emails). */
  privateEmail?: boolean;
}

export interface OAuthProvider {
  url: string;
  clientId: string;
  clientSecret: string;
  user: ProviderUser;
  requests: { method: string; path: string }[];
  /** The vault's environment for both providers. */
  env(): Record<string, string>;
  stop(): Promise<void>;
}

interface Grant {
  dialect: "github" | "google";
  clientId: string;
  redirectUri: string;
  challenge?: string;
  user: ProviderUser;
}

async function bodyOf(req: IncomingMessage): Promise<string> {
  let text = "";
  for await (const chunk of req) text += chunk;
  return text;
}

function json(res: ServerResponse, status: number, value: unknown) {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(value));
}

export async function startOAuthProvider(): Promise<OAuthProvider> {
  const clientId = "vault-test-client";
  const clientSecret = randomBytes(16).toString("hex");
  const codes = new Map<string, Grant>();
  const tokens = new Map<string, ProviderUser>();
  const provider = {
    url: "",
    clientId,
    clientSecret,
    user: { id: "1", login: "octo", name: "Octo Cat", email: "octo@example.test" } as ProviderUser,
    requests: [] as { method: string; path: string }[],
  };

  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    provider.requests.push({ method: req.method ?? "", path: url.pathname });
    const dialect = url.pathname.startsWith("/github/") ? "github" : "google";
    try {
      if (
        req.method === "GET" &&
        (url.pathname === "/github/login/oauth/authorize" || url.pathname === "/google/o/oauth2/v2/auth")
      ) {
        const q = url.searchParams;
        if (q.get("client_id") !== clientId || !q.get("redirect_uri") || !q.get("state")) {
          return json(res, 400, { error: "invalid_request" });
        }
        if (dialect === "google" && q.get("response_type") !== "code") {
          return json(res, 400, { error: "unsupported_response_type" });
        }
        const code = randomBytes(12).toString("hex");
        codes.set(code, {
          dialect,
          clientId,
          redirectUri: q.get("redirect_uri")!,
          challenge: q.get("code_challenge") ?? undefined,
          user: { ...provider.user },
        });
        const back = new URL(q.get("redirect_uri")!);
        back.searchParams.set("code", code);
        back.searchParams.set("state", q.get("state")!);
        res.writeHead(302, { location: back.toString() }).end();
        return;
      }
      if (
        req.method === "POST" &&
        (url.pathname === "/github/login/oauth/access_token" || url.pathname === "/google/token")
      ) {
        const form = new URLSearchParams(await bodyOf(req));
        let id = form.get("client_id");
        let secret = form.get("client_secret");
        const basic = /^Basic (.+)$/i.exec(req.headers.authorization ?? "");
        if (basic) {
          const [u, p] = Buffer.from(basic[1]!, "base64").toString().split(":");
          id = decodeURIComponent(u ?? "");
          secret = decodeURIComponent(p ?? "");
        }
        const grant = codes.get(form.get("code") ?? "");
        codes.delete(form.get("code") ?? "");
        const verifier = form.get("code_verifier");
        const bad = id !== clientId || secret !== clientSecret
          ? "invalid_client"
          : !grant || grant.dialect !== dialect || grant.redirectUri !== form.get("redirect_uri")
          ? "invalid_grant"
          : grant.challenge &&
              createHash("sha256").update(verifier ?? "").digest("base64url") !== grant.challenge
          ? "invalid_grant"
          : undefined;
        if (bad) return json(res, dialect === "github" ? 200 : 400, { error: bad });
        const token = randomBytes(16).toString("hex");
        tokens.set(token, grant!.user);
        if (dialect === "google") {
          return json(res, 200, {
            access_token: token,
            expires_in: 3599,
            token_type: "Bearer",
            scope: "openid email profile",
          });
        }
        const answer = { access_token: token, token_type: "bearer", scope: "read:user,user:email" };
        if ((req.headers.accept ?? "").includes("application/json")) return json(res, 200, answer);
        res.writeHead(200, { "content-type": "application/x-www-form-urlencoded" })
          .end(new URLSearchParams(answer).toString());
        return;
      }
      const bearer = /^(?:Bearer|token) (.+)$/i.exec(req.headers.authorization ?? "")?.[1];
      const user = bearer ? tokens.get(bearer) : undefined;
      if (
        req.method === "GET" &&
        ["/github/api/user", "/github/api/user/emails", "/google/v1/userinfo"].includes(url.pathname)
      ) {
        if (!user) return json(res, 401, { message: "Bad credentials" });
        if (url.pathname === "/github/api/user") {
          return json(res, 200, {
            login: user.login,
            id: Number(user.id),
            node_id: `U_${user.id}`,
            avatar_url: `https://avatars.example.test/u/${user.id}`,
            type: "User",
            name: user.name,
            email: user.privateEmail ? null : user.email,
          });
        }
        if (url.pathname === "/github/api/user/emails") {
          return json(res, 200, [
            {
              email: `${user.login}@users.noreply.example.test`,
              primary: false,
              verified: true,
              visibility: null,
            },
            { email: user.email, primary: true, verified: true, visibility: "private" },
          ]);
        }
        return json(res, 200, {
          sub: user.id,
          name: user.name,
          given_name: user.name.split(" ")[0],
          email: user.email,
          email_verified: true,
          picture: `https://lh3.example.test/${user.id}`,
        });
      }
      json(res, 404, { error: "not_found" });
    } catch (err) {
      json(res, 500, { error: String(err) });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  provider.url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  return Object.assign(provider, {
    env: () => ({
      VAULT_GITHUB_CLIENT_ID: clientId,
      VAULT_GITHUB_CLIENT_SECRET: clientSecret,
      VAULT_GITHUB_AUTHORIZATION_URL: `${provider.url}/github/login/oauth/authorize`,
      VAULT_GITHUB_TOKEN_URL: `${provider.url}/github/login/oauth/access_token`,
      VAULT_GITHUB_API_URL: `${provider.url}/github/api`,
      VAULT_GOOGLE_CLIENT_ID: clientId,
      VAULT_GOOGLE_CLIENT_SECRET: clientSecret,
      VAULT_GOOGLE_AUTHORIZATION_URL: `${provider.url}/google/o/oauth2/v2/auth`,
      VAULT_GOOGLE_TOKEN_URL: `${provider.url}/google/token`,
      VAULT_GOOGLE_USERINFO_URL: `${provider.url}/google/v1/userinfo`,
    }),
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}
