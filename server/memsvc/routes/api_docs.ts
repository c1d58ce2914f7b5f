/**
 *   GET /openapi.json           the OpenAPI 3.1 description of every route (openapi/document.ts)
 *   GET /api-docs               interactive docs (Swagger UI), from files embedded in the binary
 *   GET /api-docs/<file>        the page's files; `?v=<hash>` URLs are cached for good
 *
 * Served by internal/openapi's apiDocsRoutes.
 */
import type { Hono } from "hono";
import type { AppEnv } from "../../../internal/http/mod.ts";
import { apiDocsRoutes as docsRoutes } from "../../../internal/openapi/mod.ts";

/**
 * Routes the server registers that /openapi.json deliberately does not describe (the route-coverage
 * test in openapi/coverage_test.ts holds every other registered route to a description):
 */
export const UNDESCRIBED_ROUTES: readonly { path: RegExp; why: string }[] = [
  { path: /^\/openapi\.json$/, why: "the description itself" },
  { path: /^\/api-docs(\/.*)?$/, why: "the interactive docs page and its files: HTML for browsers, not API" },
  { path: /^\/admin(\/.*)?$/, why: "the dashboard: a browser app (its page, assets and client-side routes)" },
];

export interface ApiDocsRoutesDeps {
  /** Builds the document; called once, on the first request. */
  document: () => object;
}

export function apiDocsRoutes(deps: ApiDocsRoutesDeps): Hono<AppEnv> {
  return docsRoutes({
    docsPath: "/api-docs",
    documentPath: "/openapi.json",
    title: "memsvc API",
    document: deps.document,
  });
}
