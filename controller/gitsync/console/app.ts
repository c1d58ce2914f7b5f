/**
 * The gitsync web console (seed 5.5): read-only pages for Applications, Revisions, Repositories and
 * the resource graph, behind a sign-in by Kubernetes bearer token or by OIDC.
 *
 *   GET  /healthz                         ok (no session)
 *   GET  /                                 redirects to /ui
 *   GET  /ui, /ui/*, /ui/assets/<file>     the browser app (strict CSP)
 *   POST /auth/token      {token}          token mode: sign in (SelfSubjectReview)
 *   GET  /auth/oidc/login                  OIDC mode: to the provider (PKCE S256, state, nonce)
 *   GET  /auth/oidc/callback               OIDC mode: back from the provider
 *   POST /auth/logout                      clears the cookie (the token is not revoked)
 *   GET  /api/session                      who is signed in, until when; 401 with the sign-in mode
 *   GET  /api/applications[?namespace=]    list
 *   GET  /api/applications/:ns/:name       the Application and its Revisions
 *   GET  /api/applications/:ns/:name/graph the live resource graph (as `gitsync graph`)
 *   GET  /api/revisions/:ns/:name          a Revision: plan with diffs, hooks, approval, diagnosis
 *   GET  /api/repositories[?namespace=]    list
 *
 * Every read goes through ConsoleKubeClient as the signed-in user: the session's token, or (OIDC)
 * the console's service account impersonating the user and groups. A 401 from the API server ends
 * the session (cookie cleared, 401 to the page). POSTs from other sites get 403.
 */
import type { Context } from "hono";
import { type AppEnv, createApp } from "../../../internal/http/mod.ts";
import type { Logger } from "../../../internal/log/mod.ts";
import { type ClusterConfig, isKubeApiError, type ResolvedKubeconfig } from "../../../internal/k8s/mod.ts";
import { type OidcClient, OidcError, type PendingSignIn } from "../../../internal/oidc/mod.ts";
import { spaRoutes } from "../../../internal/web/mod.ts";
import { buildGraph } from "../graph/graph.ts";
import { ConsoleKubeClient } from "./console_kube_client.ts";
import { refuseCrossSiteWrites } from "../../../internal/http/mod.ts";
import { CONSOLE_BASE, CONSOLE_CSP, CONSOLE_ICON, type ConsoleBundle, consolePage } from "./page.ts";
import { ConsoleRequestRefused } from "./read_only_request.ts";
import { type Session, SessionCookies } from "./session_cookie.ts";
import { MAX_SESSION_MS, SignInRefused, signInWithToken } from "./token_signin.ts";
import { type Application, APPLICATION_LABEL, type Revision } from "../api/mod.ts";
import { collectionPath, objectPath } from "../client/mod.ts";

export const SESSION_COOKIE = "gitsync_session";
const PENDING_COOKIE = "gitsync_oidc";
const PENDING_MS = 10 * 60 * 1000;

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

const NAME = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;
const NAMESPACE = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

class BadRequest extends Error {}

function param(value: string | undefined, what: "namespace" | "name"): string {
  if (!value || !(what === "namespace" ? NAMESPACE : NAME).test(value)) {
    throw new BadRequest(`invalid ${what}`);
  }
  return value;
}

/** What the pages list for a Revision. */
function revisionSummary(r: Revision) {
  return {
    name: r.metadata!.name,
    sourceRevision: r.spec.sourceRevision,
    phase: r.status?.phase ?? "Pending",
    planDigest: r.status?.plan?.digest,
    summary: r.status?.plan?.summary,
    approved: !!r.status?.approval,
    createdAt: r.metadata!.creationTimestamp,
    finishedAt: r.status?.finishedAt,
  };
}

export function consoleApp(options: ConsoleOptions) {
  const { log, cluster, oidc } = options;
  const now = options.now ?? Date.now;
  const cookies = new SessionCookies(options.sessionKey);
  const app = createApp({ log, bodyLimitBytes: 64 * 1024 });
  // Every answer carries the CSP, JSON and redirects included.
  app.use(async (c, next) => {
    await next();
    c.res.headers.set("Content-Security-Policy", CONSOLE_CSP);
  });
  app.use(refuseCrossSiteWrites());

  const setCookies = (c: Context<AppEnv>, values: string[]) => {
    for (const v of values) c.header("Set-Cookie", v, { append: true });
  };
  const session = (c: Context<AppEnv>): Session | undefined => {
    const s = cookies.get<Session>(c.req.header("cookie"), SESSION_COOKIE);
    if (!s || s.expiresAt <= now() || s.mode !== (oidc ? "oidc" : "token")) return undefined;
    return s;
  };
  const signedOut = (c: Context<AppEnv>, error: string) => {
    setCookies(c, cookies.clear(SESSION_COOKIE));
    return c.json({ error, signIn: oidc ? "oidc" : "token" }, 401);
  };
  const clientFor = (s: Session) =>
    oidc
      ? ConsoleKubeClient.impersonating(oidc.serviceConfig, { user: s.user, groups: s.groups })
      : ConsoleKubeClient.forToken(cluster, s.token!);

  /** Runs a read as the signed-in user and maps what can go wrong to the page's answers. */
  const read = async (c: Context<AppEnv>, fn: (client: ConsoleKubeClient) => Promise<unknown>) => {
    const s = session(c);
    if (!s) return signedOut(c, "not signed in");
    const client = clientFor(s);
    try {
      return c.json(await fn(client) as object, 200, { "cache-control": "no-store" });
    } catch (err) {
      if (err instanceof BadRequest) return c.json({ error: err.message }, 400);
      if (err instanceof ConsoleRequestRefused) return c.json({ error: err.message }, 403);
      if (isKubeApiError(err, 401)) return signedOut(c, "session ended: the API server no longer accepts it");
      if (isKubeApiError(err, 403) || isKubeApiError(err, 404)) {
        const e = err as { status: number; serverMessage?: string; message: string };
        return c.json({ error: e.serverMessage ?? e.message }, e.status as 403 | 404);
      }
      throw err;
    } finally {
      client.close();
    }
  };

  app.get("/healthz", (c) => c.text("ok\n"));
  app.get("/", (c) => c.redirect(CONSOLE_BASE, 302));

  app.get("/api/session", (c) => {
    const s = session(c);
    if (!s) return signedOut(c, "not signed in");
    return c.json({
      mode: s.mode,
      user: s.user,
      groups: s.groups,
      expiresAt: new Date(s.expiresAt).toISOString(),
    });
  });

  app.post("/auth/token", async (c) => {
    if (oidc) return c.json({ error: "this console signs in with OIDC (/auth/oidc/login)" }, 400);
    const type = c.req.header("content-type") ?? "";
    let token: unknown;
    if (type.includes("json")) token = (await c.req.json().catch(() => ({})) as { token?: unknown }).token;
    else token = (await c.req.parseBody().catch(() => ({}) as Record<string, unknown>))["token"];
    if (typeof token !== "string") return c.json({ error: 'send {"token": "..."}' }, 400);
    try {
      const s = await signInWithToken(cluster, token.trim(), now());
      setCookies(c, cookies.set(SESSION_COOKIE, s, s.expiresAt));
      log.info("console sign-in", { mode: "token", user: s.user });
      return c.json({ user: s.user, groups: s.groups, expiresAt: new Date(s.expiresAt).toISOString() });
    } catch (err) {
      if (err instanceof SignInRefused) {
        log.info("console sign-in refused", { mode: "token", reason: err.message });
        return c.json({ error: err.message }, 401);
      }
      throw err;
    }
  });

  app.post("/auth/logout", (c) => {
    setCookies(c, cookies.clear(SESSION_COOKIE));
    return c.body(null, 204);
  });

  app.get("/auth/oidc/login", (c) => {
    if (!oidc) return c.json({ error: "OIDC is not configured; sign in with a token" }, 404);
    const start = oidc.client.startSignIn();
    const pending: PendingSignIn & { expiresAt: number } = {
      state: start.state,
      nonce: start.nonce,
      codeVerifier: start.codeVerifier,
      expiresAt: now() + PENDING_MS,
    };
    setCookies(c, cookies.set(PENDING_COOKIE, pending, pending.expiresAt));
    return c.redirect(start.url, 302);
  });

  app.get("/auth/oidc/callback", async (c) => {
    if (!oidc) return c.json({ error: "OIDC is not configured" }, 404);
    const pending = cookies.get<PendingSignIn & { expiresAt: number }>(
      c.req.header("cookie"),
      PENDING_COOKIE,
    );
    setCookies(c, cookies.clear(PENDING_COOKIE));
    const refuse = (message: string) => {
      log.info("console sign-in refused", { mode: "oidc", reason: message });
      return c.redirect(`${CONSOLE_BASE}?error=${encodeURIComponent(message)}`, 302);
    };
    if (!pending || pending.expiresAt <= now()) {
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
      const s: Session = {
        mode: "oidc",
        user,
        groups,
        expiresAt: Math.min(signed.expiresAt, now() + MAX_SESSION_MS),
      };
      setCookies(c, cookies.set(SESSION_COOKIE, s, s.expiresAt));
      log.info("console sign-in", { mode: "oidc", user });
      return c.redirect(CONSOLE_BASE, 302);
    } catch (err) {
      if (err instanceof OidcError) return refuse(err.message);
      throw err;
    }
  });

  app.get("/api/applications", (c) =>
    read(c, async (client) => {
      const ns = c.req.query("namespace");
      const list = await client.request<{ items: Application[] }>({
        path: collectionPath(
          "applications",
          ns === undefined || ns === "" ? undefined : param(ns, "namespace"),
        ),
      });
      return { items: list.items };
    }));

  app.get("/api/applications/:ns/:name", (c) =>
    read(c, async (client) => {
      const ns = param(c.req.param("ns"), "namespace");
      const name = param(c.req.param("name"), "name");
      const application = await client.request<Application>({
        path: objectPath("applications", ns, name),
      });
      const revisions = await client.request<{ items: Revision[] }>({
        path: collectionPath("revisions", ns),
        query: { labelSelector: `${APPLICATION_LABEL}=${name}` },
      });
      const items = revisions.items
        .filter((r) => r.spec.applicationRef.name === name)
        .sort((a, b) =>
          (b.metadata!.creationTimestamp ?? "").localeCompare(a.metadata!.creationTimestamp ?? "")
        )
        .map(revisionSummary);
      return { application, revisions: items };
    }));

  app.get("/api/applications/:ns/:name/graph", (c) =>
    read(c, async (client) => {
      const ns = param(c.req.param("ns"), "namespace");
      const name = param(c.req.param("name"), "name");
      const application = await client.request<Application>({
        path: objectPath("applications", ns, name),
      });
      // The console never reads Secrets, not even their metadata: the page says they are left out.
      const kinds = application.status?.managedKinds ?? [];
      const isSecret = (k: { group: string; kind: string }) => k.group === "" && k.kind === "Secret";
      const graph = await buildGraph(client, {
        ...application,
        status: { ...application.status, managedKinds: kinds.filter((k) => !isSecret(k)) },
      });
      return { ...graph, secretsLeftOut: kinds.some(isSecret) };
    }));

  app.get("/api/revisions/:ns/:name", (c) =>
    read(c, async (client) => {
      const ns = param(c.req.param("ns"), "namespace");
      const name = param(c.req.param("name"), "name");
      return await client.request<Revision>({ path: objectPath("revisions", ns, name) });
    }));

  app.get("/api/repositories", (c) =>
    read(c, async (client) => {
      const ns = c.req.query("namespace");
      const list = await client.request<{ items: unknown[] }>({
        path: collectionPath(
          "repositories",
          ns === undefined || ns === "" ? undefined : param(ns, "namespace"),
        ),
      });
      return { items: list.items };
    }));

  const bundle = options.bundle;
  app.route(
    "/",
    spaRoutes({
      base: CONSOLE_BASE,
      csp: CONSOLE_CSP,
      assets: {
        "icon.svg": { asset: { body: CONSOLE_ICON, type: "image/svg+xml" }, maxAgeSeconds: 86400 },
        ...(bundle
          ? {
            [`gitsync.${bundle.js.hash}.js`]: { asset: bundle.js, immutable: true },
            [`gitsync.${bundle.css.hash}.css`]: { asset: bundle.css, immutable: true },
          }
          : {}),
      },
      page: bundle && consolePage(bundle),
      notBuilt:
        "The console is not built. Run `deno task build gitsync-manager` (it bundles web/gitsync into .cache/web/gitsync).\n",
    }),
  );
  return app;
}
