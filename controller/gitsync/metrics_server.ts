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
import { createServer as createHttpServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { KubeClient } from "../../internal/k8s/mod.ts";
import { PROM_CONTENT_TYPE } from "../../internal/metrics/mod.ts";
import { certificateFiles } from "./approval/certificate_source.ts";
import { startTlsServer, type TlsRequest, type TlsResponse } from "./tls_server.ts";

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

export async function startMetricsServer(o: MetricsServerOptions): Promise<MetricsServer> {
  const decisions = new Map<string, { status: 200 | 401 | 403; until: number }>();

  /** 200, 401 (no or bad token) or 403 (authenticated, not allowed). */
  async function authorize(req: TlsRequest): Promise<200 | 401 | 403> {
    if (!o.secure) return 200;
    const token = /^Bearer (\S+)$/.exec(req.headers.authorization ?? "")?.[1];
    if (!token) return 401;
    const key = createHash("sha256").update(token).digest("hex");
    const cached = decisions.get(key);
    if (cached && cached.until > Date.now()) return cached.status;
    const review = await o.secure.client.request<{
      status?: { authenticated?: boolean; user?: { username?: string; groups?: string[]; uid?: string } };
    }>({
      method: "POST",
      path: "/apis/authentication.k8s.io/v1/tokenreviews",
      body: { apiVersion: "authentication.k8s.io/v1", kind: "TokenReview", spec: { token } },
    });
    let status: 200 | 401 | 403 = 401;
    const user = review.status?.user;
    if (review.status?.authenticated && user?.username) {
      const access = await o.secure.client.request<{ status?: { allowed?: boolean } }>({
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
  }

  const handle = async (req: TlsRequest, res: TlsResponse) => {
    const reply = (status: number, body: string, type = "text/plain; charset=utf-8") => {
      res.writeHead(status, { "content-type": type });
      res.end(body);
    };
    if (req.url?.split("?")[0] !== "/metrics") return reply(404, "not found\n");
    if (req.method !== "GET") return reply(405, "method not allowed\n");
    let status: 200 | 401 | 403;
    try {
      status = await authorize(req);
    } catch {
      return reply(500, "authorization check failed\n");
    }
    if (status === 401) return reply(401, "Unauthorized\n");
    if (status === 403) return reply(403, "Forbidden\n");
    reply(200, o.render(), PROM_CONTENT_TYPE);
  };
  if (o.secure) {
    const files = certificateFiles(o.secure.certFile, o.secure.keyFile);
    const server = await startTlsServer({
      host: o.host,
      port: o.port,
      certificate: files.current()!,
      http2: o.http2 ?? false,
      handler: (req, res) => void handle(req, res),
    });
    const unsubscribe = files.subscribe((c) => {
      try {
        server.setCertificate(c);
      } catch {
        // A pair that does not match (mid-rotation): keep serving the current one.
      }
    });
    return {
      port: server.port,
      close: async () => {
        unsubscribe();
        await server.close();
      },
    };
  }
  const server: Server = createHttpServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(o.port, o.host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections?.();
      }),
  };
}
