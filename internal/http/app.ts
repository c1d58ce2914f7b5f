import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { cors } from "hono/cors";
import type { Logger } from "../log/mod.ts";
import type { AppEnv } from "./env.ts";
import { notFound, onError } from "./errors.ts";
import { ipMatcher } from "./ip.ts";
import { accessLog } from "./middleware/access_log.ts";
import { requestId } from "./middleware/request_id.ts";
import { securityHeaders } from "./middleware/security_headers.ts";

export interface AppOptions {
  log: Logger;
  /** Proxies (addresses or CIDRs) whose X-Request-Id and X-Forwarded-For are believed. Default none. */
  trustedProxies?: readonly string[];
  /** Origins allowed to make credentialed cross-origin calls. Default none: same-origin only. */
  corsOrigins?: readonly string[];
  /** Largest request body accepted, in bytes. Default 1 MiB. */
  bodyLimitBytes?: number;
  /** Routes (exact paths) that take larger bodies (an upload), with their own limit in bytes. */
  largeBodies?: Record<string, number>;
}

export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/**
 * The Hono app every server starts from: request ids, hardening headers, access log, CORS
 * allowlist, body size limit and JSON errors, in that order, so even a rejected request gets an
 * id, the headers and a log line.
 *
 * @example
 * const app = createApp({ log, trustedProxies: ["10.0.0.0/8"] });
 * app.get("/health", (c) => c.json({ ok: true }));
 */
export function createApp(options: AppOptions): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const allowed = new Set(options.corsOrigins ?? []);
  const limit = options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT;

  app.use(requestId({ log: options.log, isTrustedProxy: ipMatcher(options.trustedProxies ?? []) }));
  app.use(securityHeaders());
  app.use(accessLog());
  if (allowed.size > 0) {
    app.use(
      cors({ origin: (origin) => (allowed.has(origin) ? origin : null), credentials: true, maxAge: 600 }),
    );
  }
  const limiter = (maxSize: number) =>
    bodyLimit({
      maxSize,
      onError: (c) => c.json({ error: "request body too large", limitBytes: maxSize }, 413),
    });
  const usual = limiter(limit);
  const large = new Map(Object.entries(options.largeBodies ?? {}).map(([path, max]) => [path, limiter(max)]));
  app.use((c, next) => (large.get(c.req.path) ?? usual)(c, next));
  app.onError(onError);
  app.notFound(notFound);
  return app;
}
