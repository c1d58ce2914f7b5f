/**
 * Bundles the memsvc dashboard (web/admin) with esbuild into .cache/web/admin/:
 * admin.js (Preact app, minified ES module) and admin.css. scripts/build.ts embeds both in
 * dist/memsvc; the server computes their content hash at start and names them in the page it serves.
 */
import { mkdirSync, renameSync } from "node:fs";
import { join } from "node:path";
import * as esbuild from "esbuild";

import { DASHBOARD_OUT } from "./tools.ts";

export const DASHBOARD_SOURCE = "web/admin";

export async function bundleDashboard(root: string): Promise<void> {
  const outdir = join(root, DASHBOARD_OUT);
  mkdirSync(outdir, { recursive: true });
  await esbuild.build({
    absWorkingDir: root,
    entryPoints: {
      admin: `${DASHBOARD_SOURCE}/main.tsx`,
      "admin-style": `${DASHBOARD_SOURCE}/style.css`,
    },
    outdir,
    entryNames: "[name]",
    bundle: true,
    minify: true,
    format: "esm",
    target: ["es2022", "chrome110", "firefox110", "safari16"],
    jsx: "automatic",
    jsxImportSource: "preact",
    define: { "process.env.NODE_ENV": '"production"' },
    legalComments: "none",
    logLevel: "warning",
  });
  // One CSS entry, named after the page; esbuild would otherwise call it admin-style.css.
  renameSync(join(outdir, "admin-style.css"), join(outdir, "admin.css"));
  await esbuild.stop();
}
