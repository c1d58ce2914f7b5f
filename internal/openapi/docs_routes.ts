/**
 *   GET <documentPath>          the OpenAPI 3.1 description of every route (document.ts)
 *   GET <docsPath>              interactive docs (Swagger UI), from files embedded in the binary
 *   GET <docsPath>/<file>       the page's files; `?v=<hash>` URLs are cached for good
 *
 * Public: the description says what exists, never anything about the data. The page and its files
 * carry a strict Content-Security-Policy (docs_assets.ts).
 *
 * @example
 * app.route("/", apiDocsRoutes({ docsPath: "/api/docs", documentPath: "/api/docs.json", title: "vault API", document }));
 */
import { type Context, Hono } from "hono";
import type { AppEnv } from "../http/mod.ts";
import { DOCS_CSP, type DocsAsset, type DocsFiles, type DocsPlace, loadDocsFiles } from "./docs_assets.ts";

export interface ApiDocsRoutesOptions extends DocsPlace {
  /** Builds the document; called once, on the first request. */
  document: () => object;
}

export function apiDocsRoutes(options: ApiDocsRoutesOptions): Hono<AppEnv> {
  let json: string | undefined;
  let files: Promise<DocsFiles> | undefined;
  const docsFiles = () => (files ??= loadDocsFiles(options).catch((err) => {
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
    .get(options.documentPath, (c) => {
      json ??= JSON.stringify(options.document());
      return c.body(json, 200, {
        "content-type": "application/json; charset=utf-8",
        "cache-control": "no-cache",
      });
    })
    .get(options.docsPath, async (c) => serve(c, (await docsFiles()).page, false))
    .get(`${options.docsPath}/:file`, async (c) => {
      const file = (await docsFiles()).files.get(c.req.param("file"));
      if (!file) return c.json({ error: "not found" }, 404);
      return serve(c, file, c.req.query("v") === file.hash);
    });
}
