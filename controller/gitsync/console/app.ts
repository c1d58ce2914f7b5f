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
 * the session (cookie cleared, 401 to the page). POSTs from other sites get 403. The routes are in
 * sign_in_routes.ts and read_routes.ts, over the sessions of sessions.ts.
 */
import { createApp, refuseCrossSiteWrites } from "../../../internal/http/mod.ts";
import { appAssets, spaRoutes } from "../../../internal/web/mod.ts";
import { CONSOLE_BASE, CONSOLE_CSP, CONSOLE_ICON, consolePage } from "./page.ts";
import { mountReads } from "./read_routes.ts";
import { type ConsoleOptions, consoleSessions } from "./sessions.ts";
import { mountSignIn } from "./sign_in_routes.ts";

export { type ConsoleOptions, type OidcMode, SESSION_COOKIE } from "./sessions.ts";
export type { RevisionSummary } from "./read_routes.ts";

export function consoleApp(options: ConsoleOptions) {
  const sessions = consoleSessions(options);
  const app = createApp({ log: options.log, bodyLimitBytes: 64 * 1024 });
  // Every answer carries the CSP, JSON and redirects included.
  app.use(async (c, next) => {
    await next();
    c.res.headers.set("Content-Security-Policy", CONSOLE_CSP);
  });
  app.use(refuseCrossSiteWrites());

  app.get("/healthz", (c) => c.text("ok\n"));
  app.get("/", (c) => c.redirect(CONSOLE_BASE, 302));
  mountSignIn(app, sessions);
  mountReads(app, sessions);

  const bundle = options.bundle;
  app.route(
    "/",
    spaRoutes({
      base: CONSOLE_BASE,
      csp: CONSOLE_CSP,
      assets: appAssets("gitsync", bundle, CONSOLE_ICON),
      page: bundle && consolePage(bundle),
      notBuilt:
        "The console is not built. Run `deno task build gitsync-manager` (it bundles web/gitsync into .cache/web/gitsync).\n",
    }),
  );
  return app;
}
