import type { MiddlewareHandler } from "hono";
import type { Logger } from "../../log/mod.ts";
import type { AppEnv } from "../env.ts";

export const REQUEST_ID_PATTERN = /^[A-Za-z0-9_.:-]{1,128}$/;

export interface RequestIdOptions {
  log: Logger;
  /** Is this TCP peer a proxy whose X-Request-Id and X-Forwarded-For we believe? */
  isTrustedProxy: (addr: string) => boolean;
}

/**
 * Gives every request an id (8 random bytes as hex), echoed in `X-Request-Id` and bound to the
 * request's logger. An inbound `x-request-id` is kept only from a trusted proxy and only when it
 * matches REQUEST_ID_PATTERN, so clients cannot forge or inject ids into our logs.
 *
 * @example
 * app.use(requestId({ log, isTrustedProxy: ipMatcher(["10.0.0.0/8"]) }));
 */
export function requestId(options: RequestIdOptions): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const peer = c.env?.remoteAddr ?? "";
    const trusted = options.isTrustedProxy(peer);
    const inbound = c.req.header("x-request-id");
    const id = trusted && inbound && REQUEST_ID_PATTERN.test(inbound) ? inbound : randomRequestId();
    const clientIp = trusted
      ? forwardedClient(c.req.header("x-forwarded-for"), options.isTrustedProxy) ?? peer
      : peer;
    c.set("requestId", id);
    c.set("clientIp", clientIp);
    c.set("log", options.log.child({ requestId: id }));
    await next();
    c.res.headers.set("X-Request-Id", id);
  };
}

export function randomRequestId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** The rightmost X-Forwarded-For hop that is not itself a trusted proxy. */
function forwardedClient(header: string | undefined, isTrusted: (a: string) => boolean): string | undefined {
  const hops = (header ?? "").split(",").map((h) => h.trim()).filter(Boolean);
  for (let i = hops.length - 1; i >= 0; i--) if (!isTrusted(hops[i]!)) return hops[i];
  return hops[0];
}
