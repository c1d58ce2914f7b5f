import { CRD_FILES } from "../../cmd/edgectl/crds.ts";
import { CRD_FILES as GITSYNC_CRD_FILES } from "../../controller/gitsync/crds.ts";
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

/** The dashboard's bundle, written by scripts/lib/dashboard.ts before memsvc is compiled. */
export const DASHBOARD_OUT = ".cache/web/admin";
const DASHBOARD = ["admin.js", "admin.css"].map((f) => `${DASHBOARD_OUT}/${f}`);

/** Swagger UI for /api-docs (server/memsvc/openapi/docs_assets.ts). */
const API_DOCS = ["swagger-ui-bundle.js", "swagger-ui.css"].map((f) => `node_modules/swagger-ui-dist/${f}`);

/** The edgeproxy.io CRDs `edgectl install-crds` applies (cmd/edgectl/crds.ts reads them back). */
const EDGEPROXY_CRDS = CRD_FILES.map((file) => `crds/edgeproxy.io/${file}`);

/** The sync.gitsync.io CRDs (controller/gitsync/crds.ts reads them back). */
const GITSYNC_CRDS = GITSYNC_CRD_FILES.map((file) => `crds/sync.gitsync.io/${file}`);

/** Files embedded with `--asset`; the binary finds them through internal/platform's embeddedFile(). */
export const ASSETS: Partial<Record<Tool, string[]>> = {
  memsvc: [...PGLITE, ...DASHBOARD, ...API_DOCS],
  edgectl: EDGEPROXY_CRDS,
  "gitsync-manager": [...GITSYNC_CRDS, ...WASM_ASSETS],
};

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
  memsvc: ["web", "scripts/lib/dashboard.ts"],
  edgectl: ["crds/edgeproxy.io"],
  "gitsync-manager": ["crds/sync.gitsync.io", "wasm", WASM_OUT],
};
