/**
 *   GET /openapi.json           the OpenAPI 3.1 description of every route (openapi/document.ts)
 *   GET /api-docs               interactive docs (Swagger UI), from files embedded in the binary
 *   GET /api-docs/<file>        the page's files; `?v=<hash>` URLs are cached for good
 *
 * Public: the description says what exists, never anything about the data. The page and its files
 * carry a strict Content-Security-Policy (docs_assets.ts).
 */
import { type Context, Hono } from "hono";
import type { AppEnv } from "../../../internal/http/mod.ts";
import { DOCS_CSP, type DocsAsset, type DocsFiles, loadDocsFiles } from "../openapi/docs_assets.ts";

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
  let json: string | undefined;
  let files: Promise<DocsFiles> | undefined;
  const docsFiles = () => (files ??= loadDocsFiles().catch((err) => {
    files = undefined;
    throw err;
  }));

  const serve = (c: Context<AppEnv>, file: DocsAsset, immutable: boolean) => {
    const etag = `"${file.hash}"`;
    const headers = {
      "content-type": file.contentType,
      "content-security-policy": DOCS_CSP,
      "cache-control": immutable ? "public, max-age=31536000, immutable" : "no-cache",
      etag,
    };
    if (c.req.header("if-none-match") === etag) return c.body(null, 304, headers);
    return c.body(file.body as Uint8Array<ArrayBuffer>, 200, headers);
  };

  return new Hono<AppEnv>()
    .get("/openapi.json", (c) => {
      json ??= JSON.stringify(deps.document());
      return c.body(json, 200, {
        "content-type": "application/json; charset=utf-8",
        "cache-control": "no-cache",
      });
    })
    .get("/api-docs", async (c) => serve(c, (await docsFiles()).page, false))
    .get("/api-docs/:file", async (c) => {
      const file = (await docsFiles()).files.get(c.req.param("file"));
      if (!file) return c.json({ error: "not found" }, 404);
      return serve(c, file, c.req.query("v") === file.hash);
    });
}
