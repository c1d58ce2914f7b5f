/**
 * The console's sign-in (seed 5.5): by a Kubernetes bearer token (checked with a SelfSubjectReview) or,
 * in OIDC mode, at the provider (PKCE S256, state, nonce); who is signed in; sign-out.
 *
 *   GET  /api/session                      who is signed in, until when; 401 with the sign-in mode
 *   POST /auth/token      {token}          token mode: sign in
 *   POST /auth/logout                      clears the cookie (the token is not revoked)
 *   GET  /auth/oidc/login                  OIDC mode: to the provider
 *   GET  /auth/oidc/callback               OIDC mode: back from the provider
 */
import type { Hono } from "hono";
import type { AppEnv } from "../../../internal/http/mod.ts";
import { OidcError, type PendingSignIn } from "../../../internal/oidc/mod.ts";
import { CONSOLE_BASE } from "./page.ts";
import type { Session } from "./session_cookie.ts";
import { type ConsoleSessions, SESSION_COOKIE } from "./sessions.ts";
import { MAX_SESSION_MS, SignInRefused, signInWithToken } from "./token_signin.ts";

const PENDING_COOKIE = "gitsync_oidc";
const PENDING_MS = 10 * 60 * 1000;

export function mountSignIn(app: Hono<AppEnv>, s: ConsoleSessions) {
  app.get("/api/session", (c) => {
    const session = s.session(c);
    if (!session) return s.signedOut(c, "not signed in");
    return c.json({
      mode: session.mode,
      user: session.user,
      groups: session.groups,
      expiresAt: new Date(session.expiresAt).toISOString(),
    });
  });

  app.post("/auth/token", async (c) => {
    if (s.oidc) return c.json({ error: "this console signs in with OIDC (/auth/oidc/login)" }, 400);
    const type = c.req.header("content-type") ?? "";
    let token: unknown;
    if (type.includes("json")) token = (await c.req.json().catch(() => ({})) as { token?: unknown }).token;
    else token = (await c.req.parseBody().catch(() => ({}) as Record<string, unknown>))["token"];
    if (typeof token !== "string") return c.json({ error: 'send {"token": "..."}' }, 400);
    try {
      const session = await signInWithToken(s.cluster, token.trim(), s.now());
      s.setCookies(c, s.cookies.set(SESSION_COOKIE, session, session.expiresAt));
      s.log.info("console sign-in", { mode: "token", user: session.user });
      return c.json({
        user: session.user,
        groups: session.groups,
        expiresAt: new Date(session.expiresAt).toISOString(),
      });
    } catch (err) {
      if (err instanceof SignInRefused) {
        s.log.info("console sign-in refused", { mode: "token", reason: err.message });
        return c.json({ error: err.message }, 401);
      }
      throw err;
    }
  });

  app.post("/auth/logout", (c) => {
    s.setCookies(c, s.cookies.clear(SESSION_COOKIE));
    return c.body(null, 204);
  });

  app.get("/auth/oidc/login", (c) => {
    if (!s.oidc) return c.json({ error: "OIDC is not configured; sign in with a token" }, 404);
    const start = s.oidc.client.startSignIn();
    const pending: PendingSignIn & { expiresAt: number } = {
      state: start.state,
      nonce: start.nonce,
      codeVerifier: start.codeVerifier,
      expiresAt: s.now() + PENDING_MS,
    };
    s.setCookies(c, s.cookies.set(PENDING_COOKIE, pending, pending.expiresAt));
    return c.redirect(start.url, 302);
  });

  app.get("/auth/oidc/callback", async (c) => {
    const oidc = s.oidc;
    if (!oidc) return c.json({ error: "OIDC is not configured" }, 404);
    const pending = s.cookies.get<PendingSignIn & { expiresAt: number }>(
      c.req.header("cookie"),
      PENDING_COOKIE,
    );
    s.setCookies(c, s.cookies.clear(PENDING_COOKIE));
    const refuse = (message: string) => {
      s.log.info("console sign-in refused", { mode: "oidc", reason: message });
      return c.redirect(`${CONSOLE_BASE}?error=${encodeURIComponent(message)}`, 302);
    };
    if (!pending || pending.expiresAt <= s.now()) {
      return refuse("the sign-in expired or was started elsewhere; start again");
    }
    try {
      const signed = await oidc.client.finishSignIn(new URL(c.req.url), pending);
      const user = signed.claims[oidc.usernameClaim];
      const rawGroups = signed.claims[oidc.groupsClaim] ?? [];
      if (typeof user !== "string" || !user) return refuse(`the ID token has no ${oidc.usernameClaim} claim`);
      if (!Array.isArray(rawGroups) || rawGroups.some((g) => typeof g !== "string")) {
        return refuse(`the ID token's ${oidc.groupsClaim} claim is not a list of names`);
      }
      const groups = rawGroups as string[];
      const system = [user, ...groups].find((n) => n.startsWith("system:"));
      if (system) return refuse(`names starting with system: are refused (${system})`);
      const session: Session = {
        mode: "oidc",
        user,
        groups,
        expiresAt: Math.min(signed.expiresAt, s.now() + MAX_SESSION_MS),
      };
      s.setCookies(c, s.cookies.set(SESSION_COOKIE, session, session.expiresAt));
      s.log.info("console sign-in", { mode: "oidc", user });
      return c.redirect(CONSOLE_BASE, 302);
    } catch (err) {
      if (err instanceof OidcError) return refuse(err.message);
      throw err;
    }
  });
}
