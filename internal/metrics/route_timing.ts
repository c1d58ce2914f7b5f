import type { Context, MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";

/** The route label of requests no route answered: one value, however many paths are probed. */
export const UNMATCHED_ROUTE = "unmatched";

/** What routeTiming reports each request to: a tool's own metrics registry. */
export interface RequestRecorder<C> {
  recordRequest(route: string, status: number, durationMs: number, caller?: C): void;
}

/**
 * Records each request's duration (until the response headers) and status under its route
 * pattern, e.g. `/v1/memories/:id`, never the raw path, so the label set stays as small as the
 * route table; and passes the request's `caller` context variable along, so a registry can count
 * requests per caller. Mount it before the routes.
 *
 * @example
 * api.use(routeTiming(metrics));
 */
// deno-lint-ignore no-explicit-any
export function routeTiming<C>(metrics: RequestRecorder<C>): MiddlewareHandler<any> {
  return async (c, next) => {
    const started = performance.now();
    await next();
    metrics.recordRequest(routePattern(c), c.res.status, performance.now() - started, c.get("caller") as C);
  };
}

/**
 * The pattern of the handler registered for this request. Hono lists middleware and handlers
 * alike among the matched routes; as in Hono's own route inspection, a function that takes
 * `next` is middleware. A request stopped by a guard still counts under the route it asked for.
 */
function routePattern(c: Context): string {
  return matchedRoutes(c).findLast((route) => route.handler.length < 2)?.path ?? UNMATCHED_ROUTE;
}
