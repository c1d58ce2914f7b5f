import type { MiddlewareHandler } from "hono";

const HEADERS = {
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
  "X-Frame-Options": "DENY",
} as const;

/**
 * Hardening headers on every response, errors and 404s included (they are set after the
 * handler, on whatever response it or the error handler produced).
 */
export function securityHeaders(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    for (const [name, value] of Object.entries(HEADERS)) c.res.headers.set(name, value);
  };
}
