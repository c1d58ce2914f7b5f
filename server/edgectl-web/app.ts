/**
 * The `edgectl web` server: the dashboard page (web/edgectl, embedded) under a strict CSP, and the
 * JSON API it reads. Every Kubernetes request is made with the user's identity: the kubeconfig's, or
 * with OIDC the signed-in person's through impersonation, so the API server's RBAC decides what each
 * person sees and may change. Writes (apply, delete) exist only without --read-only, and a write
 * that the browser marks cross-site (or whose Origin is another host) is refused before it runs.
 *
 *   GET  /healthz                   200 {ok:true}
 *   GET  /api/session               who is signed in, read-only, which data sources are configured
 *   GET  /api/resources             every edgeproxy.io kind with its columns and conditions, and the topology
 *   GET  /api/metrics?minutes=15    requests/s, 5xx ratio, p99 per route over time (Prometheus)
 *   GET  /api/traces?limit=20       recent traces (Jaeger)
 *   GET  /api/traces/:id            one trace's span tree
 *   GET  /api/access?limit=100      the agents' latest access-log records
 *   POST /api/apply   {manifest}    apply YAML/JSON documents (not with --read-only)
 *   POST /api/delete  {apiVersion, kind, namespace, name}   (not with --read-only)
 *   GET  /auth/login, /auth/callback, POST /auth/logout     OIDC sign-in (when configured)
 *   GET  /ui, /ui/*                 the page; /ui/assets/* its files
 */
import type { Context, Hono, MiddlewareHandler } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import { z } from "zod";
import { type AppEnv, createApp, refuseCrossSiteWrites } from "../../internal/http/mod.ts";
import {
  applyObject,
  type ApplyResult,
  deleteObject,
  discoveryFor,
  isKubeApiError,
  KubeApiError,
  type KubeClient,
  type KubeObject,
  NoKindMatchError,
  parseManifests,
  withoutManagedFields,
} from "../../internal/k8s/mod.ts";
import type { Logger } from "../../internal/log/mod.ts";
import { type OidcClient, OidcError, type PendingSignIn } from "../../internal/oidc/mod.ts";
import { defineRoute, type RouteMounter, routeMounter } from "../../internal/openapi/route_spec.ts";
import { appAssets, spaRoutes } from "../../internal/web/mod.ts";
import type { JaegerClient } from "../../internal/edgeproxy/jaeger_client.ts";
import type { PrometheusClient } from "../../internal/edgeproxy/prometheus_client.ts";
import { API_VERSION } from "../../internal/edgeproxy/resources.ts";
import { spanTree } from "../../internal/edgeproxy/trace_view.ts";
import { listResources, metricsView, recentAccess, recentTraces, topology } from "./dashboard_data.ts";
import { ICON, type WebBundle, webPage } from "./page.ts";
import { PENDING_COOKIE, SESSION_COOKIE, Sessions, userOfClaims, type WebUser } from "./sessions.ts";
import { FIELD_MANAGER } from "../../internal/edgeproxy/objects.ts";

/** No inline script or style, nothing from another origin, never framed. */
export const WEB_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join("; ");

export interface WebOidc {
  /** The relying party for the redirect URL of this origin (the provider must list it). */
  clientFor(origin: string): Promise<OidcClient>;
}

export interface WebAppDeps {
  log: Logger;
  /** The kubeconfig's client; with OIDC only its connection is used, through impersonation. */
  kube: KubeClient;
  readOnly: boolean;
  tls: boolean;
  oidc?: WebOidc;
  prometheus?: PrometheusClient;
  jaeger?: JaegerClient;
  proxyNamespace: string;
  bundle: WebBundle | undefined;
}

type WebEnv = AppEnv & { Variables: AppEnv["Variables"] & { user: WebUser; kube: KubeClient } };

const applyBody = z.object({ manifest: z.string().min(1).max(512 * 1024) });
const deleteBody = z.object({
  apiVersion: z.string().min(1).default(API_VERSION),
  kind: z.string().min(1).max(100),
  namespace: z.string().max(63).default(""),
  name: z.string().min(1).max(253),
});

const ROUTES = {
  session: defineRoute({
    method: "get",
    path: "/api/session",
    operationId: "session",
    tag: "web",
    summary: "Who is signed in and what the dashboard may do",
    access: "public",
    responses: { 200: { description: "the session" } },
  }),
  resources: defineRoute({
    method: "get",
    path: "/api/resources",
    operationId: "resources",
    tag: "web",
    summary: "Every edgeproxy.io kind with its objects, and routes → backends",
    access: "viewer",
    responses: { 200: { description: "kinds and topology" } },
  }),
  metrics: defineRoute({
    method: "get",
    path: "/api/metrics",
    operationId: "metrics",
    tag: "web",
    summary: "Traffic per route over time",
    access: "viewer",
    query: z.object({ minutes: z.coerce.number().int().min(1).max(24 * 60).default(15) }),
    responses: { 200: { description: "series" } },
    errors: [502, 503],
  }),
  traces: defineRoute({
    method: "get",
    path: "/api/traces",
    operationId: "traces",
    tag: "web",
    summary: "Recent traces",
    access: "viewer",
    query: z.object({ limit: z.coerce.number().int().min(1).max(200).default(20) }),
    responses: { 200: { description: "trace summaries" } },
    errors: [502, 503],
  }),
  trace: defineRoute({
    method: "get",
    path: "/api/traces/:id",
    operationId: "trace",
    tag: "web",
    summary: "One trace as the span tree `edgectl trace get` prints",
    access: "viewer",
    params: z.object({ id: z.string().regex(/^[0-9a-fA-F]{1,32}$/, "a trace id is 1-32 hex digits") }),
    responses: { 200: { description: "the span tree" } },
    errors: [404, 502, 503],
  }),
  access: defineRoute({
    method: "get",
    path: "/api/access",
    operationId: "access",
    tag: "web",
    summary: "The agents' latest access-log records",
    access: "viewer",
    query: z.object({ limit: z.coerce.number().int().min(1).max(1000).default(100) }),
    responses: { 200: { description: "records, newest first" } },
  }),
  apply: defineRoute({
    method: "post",
    path: "/api/apply",
    operationId: "apply",
    tag: "web",
    summary: "Apply manifests as the signed-in user",
    access: "writer",
    body: applyBody,
    responses: { 200: { description: "one result per document" } },
  }),
  delete: defineRoute({
    method: "post",
    path: "/api/delete",
    operationId: "delete",
    tag: "web",
    summary: "Delete one object as the signed-in user",
    access: "writer",
    body: deleteBody,
    responses: { 200: { description: "deleted" } },
    errors: [404],
  }),
} as const;

/** A Kubernetes refusal keeps its status (403 Forbidden, 404, 409, 422) and message; others are 502. */
/** GET /api/session: who is signed in and what the dashboard may do (the web app imports this type). */
export interface WebSession {
  user: WebUser | null;
  auth: "kubeconfig" | "oidc";
  readOnly: boolean;
  /** The Prometheus and Jaeger addresses, or null when none is configured. */
  prometheus: string | null;
  traces: string | null;
}

function kubeError(c: Context, err: unknown) {
  if (err instanceof KubeApiError && err.status >= 400 && err.status < 500) {
    return c.json({ error: err.message, reason: err.reason }, err.status as 400);
  }
  if (err instanceof NoKindMatchError) return c.json({ error: err.message }, 400);
  throw err;
}

const UPSTREAMS = {
  prometheus: { name: "Prometheus", flag: "--prometheus-url", env: "EDGECTL_PROMETHEUS_URL" },
  jaeger: { name: "Jaeger", flag: "--trace-endpoint", env: "EDGECTL_TRACE_ENDPOINT" },
} as const;

/** Why a fetch found nobody, in words (the clients' messages end with the runtime's cause). */
function unreachableWhy(message: string): string {
  if (/ECONNREFUSED|connection refused/i.test(message)) return "nothing listens there";
  if (/ENOTFOUND|EAI_AGAIN|getaddrinfo|dns/i.test(message)) return "no such host";
  if (/timeout|timed out|aborted/i.test(message)) return "it did not answer in time";
  return "it did not answer";
}

/**
 * An upstream (Prometheus, Jaeger) that failed: 502. When it cannot be reached, or something else
 * answers at its address, the page says where the dashboard looked and which flag sets the address,
 * not the runtime's error; the address names no credentials (endpoint.ts).
 */
function upstreamError(c: Context, what: keyof typeof UPSTREAMS, url: string, err: unknown) {
  const u = UPSTREAMS[what];
  const message = (err as Error).message;
  const unreachable = /^cannot reach /.test(message);
  const notIt = / without a (Prometheus|Jaeger) API response/.test(message);
  if (!unreachable && !notIt) return c.json({ error: `${u.name}: ${message.replace(/^\w+: /, "")}` }, 502);
  const why = unreachable
    ? `${u.name} at ${url} cannot be reached: ${unreachableWhy(message)}`
    : `${url} is not ${u.name}`;
  return c.json({
    error: `${why}. The dashboard reads ${u.name} at the address ${u.flag} (or ${u.env}) gives; ` +
      `start edgectl web with the right one.`,
    flag: u.flag,
  }, 502);
}

type Access = "public" | "viewer" | "writer";
type Mount = RouteMounter<WebEnv, Access>["mountRoute"];
type UserOf = (c: Context<WebEnv>) => WebUser | undefined;
type PendingWebSignIn = PendingSignIn & { origin: string; back: string };
type CookieBase = { httpOnly: true; secure: boolean; sameSite: "Lax"; path: "/" };

export function createWebApp(deps: WebAppDeps): Hono<AppEnv> {
  const { log, kube, readOnly, oidc } = deps;
  const app = createApp({ log }) as unknown as Hono<WebEnv>;
  const sessions = new Sessions<PendingWebSignIn>();
  const cookieBase: CookieBase = { httpOnly: true, secure: deps.tls, sameSite: "Lax", path: "/" };

  app.use(refuseCrossSiteWrites());
  app.get("/healthz", (c) => c.json({ ok: true }));
  app.get("/", (c) => c.redirect("/ui/"));

  const userOf: UserOf = (c) =>
    oidc
      ? sessions.users.get(getCookie(c, SESSION_COOKIE))
      : { name: `kubeconfig (${kube.config.contextName || "in-cluster"})`, groups: [], via: "kubeconfig" };

  const viewer = (): MiddlewareHandler<WebEnv> => async (c, next) => {
    const user = userOf(c);
    if (!user) return c.json({ error: "sign in first", signIn: "/auth/login" }, 401);
    c.set("user", user);
    c.set(
      "kube",
      user.via === "oidc" ? kube.impersonating({ user: user.name, groups: user.groups }) : kube,
    );
    return await next();
  };
  const writer = (): MiddlewareHandler<WebEnv> => async (c, next) => {
    if (readOnly) return c.json({ error: "edgectl web runs with --read-only: changes are off" }, 403);
    // JSON only: a cross-site form (text/plain) cannot send it without a CORS preflight, which fails.
    if (!/^application\/json\s*(;|$)/i.test(c.req.header("content-type") ?? "")) {
      return c.json({ error: "the body must be JSON (content-type: application/json)" }, 415);
    }
    return await viewer()(c, next);
  };
  const { mountRoute } = routeMounter<WebEnv, Access>({ public: undefined, viewer, writer });

  mountReads(app, mountRoute, deps, userOf);
  mountWrites(app, mountRoute, kube);
  if (oidc) mountSignIn(app, oidc, sessions, cookieBase);
  app.route("/", pageRoutes(deps.bundle) as unknown as Hono<WebEnv>);
  return app as unknown as Hono<AppEnv>;
}

/** The session, and what the dashboard shows: resources, metrics, traces and access logs. */
function mountReads(app: Hono<WebEnv>, mountRoute: Mount, deps: WebAppDeps, userOf: UserOf) {
  mountRoute(app, ROUTES.session, (c) => {
    const user = userOf(c);
    const session: WebSession = {
      user: user ?? null,
      auth: deps.oidc ? "oidc" : "kubeconfig",
      readOnly: deps.readOnly,
      prometheus: deps.prometheus ? deps.prometheus.baseUrl : null,
      traces: deps.jaeger ? deps.jaeger.baseUrl : null,
    };
    return c.json(session);
  });
  mountRoute(app, ROUTES.resources, async (c) => {
    const kinds = await listResources(c.get("kube"));
    return c.json({ kinds, topology: topology(kinds) });
  });

  mountRoute(app, ROUTES.metrics, async (c, { query }) => {
    if (!deps.prometheus) {
      return c.json({ error: "no Prometheus configured: start with --prometheus-url" }, 503);
    }
    try {
      return c.json(await metricsView(deps.prometheus, query.minutes));
    } catch (err) {
      return upstreamError(c, "prometheus", deps.prometheus.baseUrl, err);
    }
  });

  mountRoute(app, ROUTES.traces, async (c, { query }) => {
    if (!deps.jaeger) return c.json({ error: "no Jaeger configured: start with --trace-endpoint" }, 503);
    try {
      return c.json({ traces: await recentTraces(deps.jaeger, query.limit) });
    } catch (err) {
      return upstreamError(c, "jaeger", deps.jaeger.baseUrl, err);
    }
  });

  mountRoute(app, ROUTES.trace, async (c, { params }) => {
    if (!deps.jaeger) return c.json({ error: "no Jaeger configured: start with --trace-endpoint" }, 503);
    try {
      const trace = await deps.jaeger.trace(params.id);
      if (!trace) return c.json({ error: `trace ${params.id} not found` }, 404);
      return c.json({ traceID: trace.traceID, tree: spanTree(trace) });
    } catch (err) {
      return upstreamError(c, "jaeger", deps.jaeger.baseUrl, err);
    }
  });

  mountRoute(app, ROUTES.access, async (c, { query }) => {
    try {
      return c.json({ records: await recentAccess(c.get("kube"), deps.proxyNamespace, query.limit) });
    } catch (err) {
      return kubeError(c, err);
    }
  });
}

/** Apply and delete, as the signed-in user (never with --read-only: the writer guard refuses them). */
function mountWrites(app: Hono<WebEnv>, mountRoute: Mount, kube: KubeClient) {
  mountRoute(app, ROUTES.apply, async (c, { body }) => {
    let docs;
    try {
      docs = parseManifests(body.manifest, "manifest");
    } catch (err) {
      return c.json({ error: (err as Error).message }, 400);
    }
    if (docs.length === 0) return c.json({ error: "the manifest has no documents" }, 400);
    for (const d of docs) {
      if (!d.object.metadata?.name) {
        return c.json({ error: `document ${d.index}: metadata.name is required` }, 400);
      }
    }
    const client = c.get("kube");
    const results = [];
    for (const d of docs) {
      const ref = {
        kind: d.object.kind,
        namespace: d.object.metadata?.namespace ?? kube.namespace,
        name: d.object.metadata!.name,
      };
      try {
        const r: ApplyResult = await applyObject(client, d.object, {
          fieldManager: FIELD_MANAGER,
          serverSide: false,
          namespace: ref.namespace,
        });
        results.push({ ...ref, action: r.action, object: withoutManagedFields(r.object) as KubeObject });
        c.get("log").info("applied", { user: c.get("user").name, ...ref, action: r.action });
      } catch (err) {
        if (!(err instanceof KubeApiError) && !(err instanceof NoKindMatchError)) throw err;
        results.push({ ...ref, error: err.message });
      }
    }
    const failed = results.filter((r) => "error" in r).length;
    return c.json({ results }, failed === results.length ? 422 : 200);
  });

  mountRoute(app, ROUTES.delete, async (c, { body }) => {
    const client = c.get("kube");
    try {
      const resource = await discoveryFor(client).forKind(body.apiVersion, body.kind);
      await deleteObject(client, resource, body.name, { namespace: body.namespace || kube.namespace });
      c.get("log").info("deleted", {
        user: c.get("user").name,
        kind: body.kind,
        namespace: body.namespace,
        name: body.name,
      });
      return c.json({ deleted: { kind: body.kind, namespace: body.namespace, name: body.name } });
    } catch (err) {
      return kubeError(c, err);
    }
  });
}

/** OIDC sign-in: /auth/login starts it at the provider, /auth/callback finishes it, /auth/logout ends it. */
function mountSignIn(
  app: Hono<WebEnv>,
  oidc: WebOidc,
  sessions: Sessions<PendingWebSignIn>,
  cookieBase: CookieBase,
) {
  const originOf = (c: Context) => new URL(c.req.url).origin;
  app.get("/auth/login", async (c) => {
    const origin = originOf(c);
    const client = await oidc.clientFor(origin);
    const start = client.startSignIn();
    const back = c.req.query("back");
    const id = sessions.startSignIn({
      state: start.state,
      nonce: start.nonce,
      codeVerifier: start.codeVerifier,
      origin,
      // Only a path on this server: never an open redirect.
      back: back && /^\/ui(\/|$)/.test(back) ? back : "/ui/",
    });
    setCookie(c, PENDING_COOKIE, id, { ...cookieBase, maxAge: 600 });
    return c.redirect(start.url);
  });
  app.get("/auth/callback", async (c) => {
    const pending = sessions.pending.take(getCookie(c, PENDING_COOKIE));
    setCookie(c, PENDING_COOKIE, "", { ...cookieBase, maxAge: 0 });
    if (!pending) {
      return c.json({ error: "no sign-in in progress in this browser: start again at /auth/login" }, 400);
    }
    try {
      const client = await oidc.clientFor(pending.origin);
      const signed = await client.finishSignIn(new URL(c.req.url), pending);
      const user = userOfClaims(signed.claims);
      setCookie(c, SESSION_COOKIE, sessions.signIn(user, signed.expiresAt), {
        ...cookieBase,
        expires: new Date(signed.expiresAt),
      });
      c.get("log").info("signed in", { user: user.name, groups: user.groups });
      return c.redirect(pending.back);
    } catch (err) {
      if (!(err instanceof OidcError)) throw err;
      c.get("log").warn("sign-in refused", { reason: err.message });
      return c.json({ error: err.message }, 401);
    }
  });
  app.post("/auth/logout", (c) => {
    sessions.users.take(getCookie(c, SESSION_COOKIE));
    setCookie(c, SESSION_COOKIE, "", { ...cookieBase, maxAge: 0 });
    return c.json({ signedOut: true });
  });
}

/** The page under /ui, its files, and the build hint when it is not built. */
function pageRoutes(bundle: WebBundle | undefined) {
  return spaRoutes({
    base: "/ui",
    csp: WEB_CSP,
    assets: appAssets("edgectl", bundle, ICON),
    page: bundle && webPage(bundle),
    notBuilt:
      "The dashboard is not built. Run `deno task build edgectl` (it bundles web/edgectl into .cache/web/edgectl).\n",
  });
}

export { isKubeApiError };
