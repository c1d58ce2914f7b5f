import { CRD_FILES } from "../../internal/edgeproxy/crds.ts";
import { CRD_FILES as GITSYNC_CRD_FILES } from "../../controller/gitsync/crds.ts";
import { hostPlatform } from "../../server/memsvc/embeddings/minilm_assets.ts";
import { minilmAssets } from "./minilm.ts";
import { WASM_ASSETS, WASM_OUT } from "./wasm.ts";

/** The seven binaries, and the files each embeds besides its code. */
export const TOOLS = [
  "memsvc",
  "gitsync-manager",
  "gitsync",
  "edgectl",
  "vault",
  "vault-init",
  "vault-mcp",
] as const;
export type Tool = (typeof TOOLS)[number];

const PGLITE = ["pglite.wasm", "initdb.wasm", "pglite.data"].map((f) =>
  `node_modules/@electric-sql/pglite/dist/${f}`
);

/** The browser apps (web/<app>), bundled by scripts/lib/web_bundle.ts before the binary that embeds them. */
export const WEB_APPS = {
  admin: { tool: "memsvc", out: ".cache/web/admin" },
  gitsync: { tool: "gitsync-manager", out: ".cache/web/gitsync" },
  edgectl: { tool: "edgectl", out: ".cache/web/edgectl" },
  vault: { tool: "vault", out: ".cache/web/vault" },
} as const satisfies Record<string, { tool: Tool; out: string }>;
export type WebApp = keyof typeof WEB_APPS;
const webFiles = (app: WebApp) => [`${app}.js`, `${app}.css`].map((f) => `${WEB_APPS[app].out}/${f}`);
const DASHBOARD = webFiles("admin");
const CONSOLE = webFiles("gitsync");
const EDGECTL_WEB = webFiles("edgectl");
const VAULT_WEB = webFiles("vault");

/** Swagger UI for the API docs pages (internal/openapi/docs_assets.ts). */
const API_DOCS = ["swagger-ui-bundle.js", "swagger-ui.css"].map((f) => `node_modules/swagger-ui-dist/${f}`);

/**
 * memsvc's built-in neural embedder (server/memsvc/embeddings/minilm.ts): the model, its vocabulary and
 * the runtimes (onnxruntime-web's wasm, onnxruntime-node's native library for the binary's platform), all
 * prepared in .cache/minilm by scripts/lib/minilm.ts.
 */
const MINILM = minilmAssets;

/** The edgeproxy.io CRDs `edgectl install-crds` applies (internal/edgeproxy/crds.ts reads them back). */
const EDGEPROXY_CRDS = CRD_FILES.map((file) => `crds/edgeproxy.io/${file}`);

/** The sync.gitsync.io CRDs (controller/gitsync/crds.ts reads them back). */
const GITSYNC_CRDS = GITSYNC_CRD_FILES.map((file) => `crds/sync.gitsync.io/${file}`);

/**
 * Files embedded with `--asset` in the binary for `platform` (e.g. linux-arm64; only memsvc's native
 * embedder runtime differs by platform); the binary finds them through internal/platform's embeddedFile().
 */
export function assetsFor(tool: Tool, platform = hostPlatform()): string[] {
  switch (tool) {
    case "memsvc":
      return [...PGLITE, ...DASHBOARD, ...API_DOCS, ...MINILM(platform)];
    case "vault":
      return [...PGLITE, ...API_DOCS, ...VAULT_WEB];
    case "edgectl":
      return [...EDGEPROXY_CRDS, ...EDGECTL_WEB];
    case "gitsync-manager":
      return [...GITSYNC_CRDS, ...WASM_ASSETS, ...CONSOLE];
    default:
      return [];
  }
}

/** The files each tool's binary for this machine embeds. */
export const ASSETS: Partial<Record<Tool, string[]>> = Object.fromEntries(
  TOOLS.map((tool) => [tool, assetsFor(tool)] as const).filter(([, assets]) => assets.length),
);

/** Worker scripts, compiled in as further entry points (internal/platform's startWorker finds them). */
export const WORKERS: Partial<Record<Tool, string[]>> = {
  "gitsync-manager": [
    "controller/gitsync/render/kustomize_worker.ts",
    "controller/gitsync/render/helm_worker.ts",
  ],
};

/** Folders and files whose changes make every built binary stale. */
export const SOURCES = ["cmd", "internal", "server", "controller", "package.json", "package-lock.json"];

/** Further sources of one binary only: a dashboard edit rebuilds memsvc, not the other six. */
export const TOOL_SOURCES: Partial<Record<Tool, string[]>> = {
  memsvc: ["web/admin", "scripts/lib/web_bundle.ts", "scripts/lib/minilm.ts", "scripts/lib/minilm_static.ts"],
  edgectl: ["crds/edgeproxy.io", "web/edgectl", "scripts/lib/web_bundle.ts"],
  vault: ["web/vault", "scripts/lib/web_bundle.ts"],
  "gitsync-manager": [
    "crds/sync.gitsync.io",
    "wasm",
    WASM_OUT,
    "web/gitsync",
    "scripts/lib/web_bundle.ts",
  ],
};
