/**
 * The files of a tool's interactive API docs: Swagger UI's bundle and stylesheet (swagger-ui-dist,
 * embedded in the binary by scripts/lib/tools.ts; read from node_modules when running from source),
 * plus the page and its start-up script, which are ours. Nothing is fetched from a CDN, and the page runs under a
 * CSP without inline scripts or eval: the start-up code is a file of its own.
 */
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { embeddedFile } from "../platform/mod.ts";

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

/** Swagger UI, configured for the document at `documentUrl`; loaded by the page after the bundle. */
const initScript = (documentUrl: string) =>
  `"use strict";
window.addEventListener("load", function () {
  window.ui = SwaggerUIBundle({
    url: ${JSON.stringify(documentUrl)},
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

const SOURCE_DIR = new URL("../../node_modules/swagger-ui-dist/", import.meta.url);

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

function page(assets: Map<string, DocsAsset>, place: DocsPlace): string {
  // Relative URLs: the page works behind a proxy that serves the tool under a path prefix.
  const dir = place.docsPath.slice(place.docsPath.lastIndexOf("/") + 1);
  const url = (name: string) => `${dir}/${name}?v=${assets.get(name)!.hash}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(place.title)}</title>
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

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

/** Where a tool serves its docs. */
export interface DocsPlace {
  /** The page, e.g. "/api-docs"; its files are below it. */
  docsPath: string;
  /** The OpenAPI document, e.g. "/openapi.json", in the same folder as the page. */
  documentPath: string;
  /** The page's title, e.g. "memsvc API". */
  title: string;
}

/** The URL of the document relative to the page (the page stays usable under a path prefix). */
export function documentUrl(place: DocsPlace): string {
  const folder = place.docsPath.slice(0, place.docsPath.lastIndexOf("/") + 1);
  return place.documentPath.startsWith(folder) ? place.documentPath.slice(folder.length) : place.documentPath;
}

export interface DocsFiles {
  page: DocsAsset;
  /** The files below the page's path, by name. */
  files: Map<string, DocsAsset>;
}

/** Loads the files once; a missing vendor file is an error naming it. */
export async function loadDocsFiles(place: DocsPlace): Promise<DocsFiles> {
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
  files.set(
    "init.js",
    await asset(new TextEncoder().encode(initScript(documentUrl(place))), "text/javascript; charset=utf-8"),
  );
  const html = new TextEncoder().encode(page(files, place));
  return { page: await asset(html, "text/html; charset=utf-8"), files };
}
