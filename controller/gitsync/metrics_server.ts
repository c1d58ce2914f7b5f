/**
 * The metrics endpoint (seed section 4: :8443, HTTPS with authentication by default). GET /metrics
 * only. Secure mode, as controller-runtime's filters do it: the bearer token is checked with a
 * TokenReview, then the user must be allowed `get` on the non-resource URL /metrics (a
 * SubjectAccessReview; bind the ClusterRole gitsync-metrics-reader of install.yaml). Decisions are
 * cached for a minute per token, so a scrape every few seconds costs the API server nothing.
 * `--metrics-secure=false` serves plain HTTP without authentication. HTTPS offers HTTP/2 only with
 * `--enable-http2`; the certificate files are re-read when they change.
 */
import { createHash } from "node:crypto";
import { Hono } from "hono";
import { type AppEnv, serve } from "../../internal/http/mod.ts";
import type { KubeClient } from "../../internal/k8s/mod.ts";
import { silentLogger } from "../../internal/log/mod.ts";
import { PROM_CONTENT_TYPE } from "../../internal/metrics/mod.ts";
import { certificateFiles } from "./approval/certificate_source.ts";
import { bindTlsListener } from "./tls_listener.ts";

export interface MetricsServerOptions {
  host: string;
  port: number;
  /** Certificate and key files for HTTPS (re-read when they change), with authentication; undefined serves plain HTTP without it. */
  secure?: { certFile: string; keyFile: string; client: KubeClient };
  /** --enable-http2: offer HTTP/2 on the HTTPS listener; default false. */
  http2?: boolean;
  render: () => string;
}

export interface MetricsServer {
  port: number;
  close(): Promise<void>;
}

const CACHE_MS = 60_000;

/** 200, 401 (no or bad token) or 403 (authenticated, not allowed), cached a minute per token. */
function authorizer(client: KubeClient) {
  const decisions = new Map<string, { status: 200 | 401 | 403; until: number }>();
  return async (authorization: string | undefined): Promise<200 | 401 | 403> => {
    const token = /^Bearer (\S+)$/.exec(authorization ?? "")?.[1];
    if (!token) return 401;
    const key = createHash("sha256").update(token).digest("hex");
    const cached = decisions.get(key);
    if (cached && cached.until > Date.now()) return cached.status;
    const review = await client.request<{
      status?: { authenticated?: boolean; user?: { username?: string; groups?: string[]; uid?: string } };
    }>({
      method: "POST",
      path: "/apis/authentication.k8s.io/v1/tokenreviews",
      body: { apiVersion: "authentication.k8s.io/v1", kind: "TokenReview", spec: { token } },
    });
    let status: 200 | 401 | 403 = 401;
    const user = review.status?.user;
    if (review.status?.authenticated && user?.username) {
      const access = await client.request<{ status?: { allowed?: boolean } }>({
        method: "POST",
        path: "/apis/authorization.k8s.io/v1/subjectaccessreviews",
        body: {
          apiVersion: "authorization.k8s.io/v1",
          kind: "SubjectAccessReview",
          spec: {
            user: user.username,
            groups: user.groups ?? [],
            ...(user.uid ? { uid: user.uid } : {}),
            nonResourceAttributes: { path: "/metrics", verb: "get" },
          },
        },
      });
      status = access.status?.allowed ? 200 : 403;
    }
    if (decisions.size > 1000) decisions.clear();
    decisions.set(key, { status, until: Date.now() + CACHE_MS });
    return status;
  };
}

/** GET /metrics, authorized in secure mode; anything else 404 (405 for another method). */
export function metricsApp(o: Pick<MetricsServerOptions, "secure" | "render">): Hono<AppEnv> {
  const authorize = o.secure ? authorizer(o.secure.client) : undefined;
  const text = (body: string, status: 401 | 403 | 404 | 405 | 500) =>
    new Response(body, { status, headers: { "content-type": "text/plain; charset=utf-8" } });
  const app = new Hono<AppEnv>();
  app.all("/metrics", async (c) => {
    if (c.req.method !== "GET") return text("method not allowed\n", 405);
    let status: 200 | 401 | 403 = 200;
    try {
      if (authorize) status = await authorize(c.req.header("authorization"));
    } catch {
      return text("authorization check failed\n", 500);
    }
    if (status === 401) return text("Unauthorized\n", 401);
    if (status === 403) return text("Forbidden\n", 403);
    return new Response(o.render(), { headers: { "content-type": PROM_CONTENT_TYPE } });
  });
  app.notFound(() => text("not found\n", 404));
  return app;
}

export async function startMetricsServer(o: MetricsServerOptions): Promise<MetricsServer> {
  // The manager logs one line with every port: serve() stays silent.
  const log = silentLogger;
  const app = metricsApp(o);
  if (!o.secure) {
    const server = serve(app, { hostname: o.host, port: o.port, log, handleSignals: false });
    return { port: server.port, close: () => server.stop() };
  }
  const files = certificateFiles(o.secure.certFile, o.secure.keyFile);
  const tls = await bindTlsListener({
    host: o.host,
    port: o.port,
    certificate: files.current()!,
    http2: o.http2 ?? false,
  });
  const server = serve(app, {
    hostname: o.host,
    port: tls.port,
    log,
    handleSignals: false,
    listen: tls.listen,
  });
  const unsubscribe = files.subscribe((c) => {
    try {
      tls.setCertificate(c);
    } catch {
      // A pair that does not match (mid-rotation): keep serving the current one.
    }
  });
  return {
    port: tls.port,
    close: async () => {
      unsubscribe();
      await server.stop();
    },
  };
}
