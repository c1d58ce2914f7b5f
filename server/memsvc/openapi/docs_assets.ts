/**
 * The files of /api-docs: Swagger UI's bundle and stylesheet (swagger-ui-dist, embedded in the
 * binary by scripts/lib/tools.ts; read from node_modules when running from source), plus the page
 * and its start-up script, which are ours. Nothing is fetched from a CDN, and the page runs under a
 * CSP without inline scripts or eval: the start-up code is a file of its own.
 */
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { embeddedFile } from "../../../internal/platform/mod.ts";

/** For the page and every file of it: scripts only from this origin, never inline or eval'd. */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  // Swagger UI sets inline style attributes (and its CSS uses data: images); styles cannot run code.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

export interface DocsAsset {
  body: Uint8Array;
  contentType: string;
  /** A short content hash: the version in the asset's URL, and its ETag. */
  hash: string;
}

/** The vendor files, by the base name they are embedded and served under. */
const VENDOR: Record<string, string> = {
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
  "swagger-ui.css": "text/css; charset=utf-8",
};

/** Swagger UI, configured for memsvc; loaded by the page after the bundle. */
const INIT_SCRIPT = `"use strict";
window.addEventListener("load", function () {
  window.ui = SwaggerUIBundle({
    url: "openapi.json",
    dom_id: "#swagger-ui",
    deepLinking: true,
    // The default sends the document to a public validator; this page stays offline.
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    plugins: [SwaggerUIBundle.plugins.DownloadUrl],
    layout: "BaseLayout",
  });
});
`;

const SOURCE_DIR = new URL("../../../node_modules/swagger-ui-dist/", import.meta.url);

async function vendorFile(name: string): Promise<Uint8Array> {
  const embedded = embeddedFile(name);
  if (embedded) return new Uint8Array(await embedded.arrayBuffer());
  return new Uint8Array(await readFile(fileURLToPath(new URL(name, SOURCE_DIR))));
}

async function shortHash(body: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", body as Uint8Array<ArrayBuffer>));
  return Array.from(digest.slice(0, 8), (b) => b.toString(16).padStart(2, "0")).join("");
}

async function asset(body: Uint8Array, contentType: string): Promise<DocsAsset> {
  return { body, contentType, hash: await shortHash(body) };
}

function page(assets: Map<string, DocsAsset>): string {
  // Relative URLs: the page works behind a proxy that serves memsvc under a path prefix.
  const url = (name: string) => `api-docs/${name}?v=${assets.get(name)!.hash}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>memsvc API</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${url("swagger-ui.css")}">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${url("swagger-ui-bundle.js")}"></script>
<script src="${url("init.js")}"></script>
</body>
</html>
`;
}

export interface DocsFiles {
  page: DocsAsset;
  /** The files below /api-docs/, by name. */
  files: Map<string, DocsAsset>;
}

/** Loads the files once; a missing vendor file is an error naming it. */
export async function loadDocsFiles(): Promise<DocsFiles> {
  const files = new Map<string, DocsAsset>();
  for (const [name, type] of Object.entries(VENDOR)) {
    let body: Uint8Array;
    try {
      body = await vendorFile(name);
    } catch (err) {
      throw new Error(`API docs file ${name} is missing from this build`, { cause: err });
    }
    files.set(name, await asset(body, type));
  }
  files.set("init.js", await asset(new TextEncoder().encode(INIT_SCRIPT), "text/javascript; charset=utf-8"));
  const html = new TextEncoder().encode(page(files));
  return { page: await asset(html, "text/html; charset=utf-8"), files };
}
