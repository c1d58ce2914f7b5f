import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../env.ts";

/**
 * One log line per request with its id, method, path (never the query string, which can carry
 * credentials), status and duration. Server errors log at error level, the rest at info.
 */
export function accessLog(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now();
    await next();
    const status = c.res.status;
    const fields = {
      method: c.req.method,
      path: c.req.path,
      status,
      durationMs: Math.round((performance.now() - started) * 10) / 10,
      clientIp: c.get("clientIp"),
    };
    c.get("log")[status >= 500 ? "error" : "info"]("request", fields);
  };
}
