/**
 * The console's sessions: the signed cookie that carries one (token mode: the bearer token; OIDC mode:
 * the user and groups), reading it back, ending it, and the Kubernetes client a session reads with.
 */
import type { Context } from "hono";
import type { AppEnv } from "../../../internal/http/mod.ts";
import type { ClusterConfig, ResolvedKubeconfig } from "../../../internal/k8s/mod.ts";
import type { Logger } from "../../../internal/log/mod.ts";
import type { OidcClient } from "../../../internal/oidc/mod.ts";
import { ConsoleKubeClient } from "./console_kube_client.ts";
import type { ConsoleBundle } from "./page.ts";
import { type Session, SessionCookies } from "./session_cookie.ts";

export const SESSION_COOKIE = "gitsync_session";

export interface OidcMode {
  client: OidcClient;
  /** The console's own credentials (service account), used only with impersonation. */
  serviceConfig: ResolvedKubeconfig;
  usernameClaim: string;
  groupsClaim: string;
}

export interface ConsoleOptions {
  log: Logger;
  /** The API server's address and CA (token mode reads with nothing else of the kubeconfig). */
  cluster: ClusterConfig;
  sessionKey: Uint8Array;
  /** Set: OIDC mode (token sign-in is off). */
  oidc?: OidcMode;
  bundle: ConsoleBundle | undefined;
  now?: () => number;
}

export interface ConsoleSessions {
  log: Logger;
  cluster: ClusterConfig;
  oidc: OidcMode | undefined;
  now: () => number;
  cookies: SessionCookies;
  setCookies(c: Context<AppEnv>, values: string[]): void;
  /** The request's session, unless missing, expired or of the other mode. */
  session(c: Context<AppEnv>): Session | undefined;
  /** 401 with the sign-in mode; the cookie cleared. */
  signedOut(c: Context<AppEnv>, error: string): Response;
  /** The client that reads as the session's user. */
  clientFor(s: Session): ConsoleKubeClient;
}

export function consoleSessions(options: ConsoleOptions): ConsoleSessions {
  const { oidc, cluster } = options;
  const now = options.now ?? Date.now;
  const cookies = new SessionCookies(options.sessionKey);
  const setCookies = (c: Context<AppEnv>, values: string[]) => {
    for (const v of values) c.header("Set-Cookie", v, { append: true });
  };
  return {
    log: options.log,
    cluster,
    oidc,
    now,
    cookies,
    setCookies,
    session: (c) => {
      const s = cookies.get<Session>(c.req.header("cookie"), SESSION_COOKIE);
      if (!s || s.expiresAt <= now() || s.mode !== (oidc ? "oidc" : "token")) return undefined;
      return s;
    },
    signedOut: (c, error) => {
      setCookies(c, cookies.clear(SESSION_COOKIE));
      return c.json({ error, signIn: oidc ? "oidc" : "token" }, 401);
    },
    clientFor: (s) =>
      oidc
        ? ConsoleKubeClient.impersonating(oidc.serviceConfig, { user: s.user, groups: s.groups })
        : ConsoleKubeClient.forToken(cluster, s.token!),
  };
}
