/**
 * Bundles edgectl's dashboard (web/edgectl) with esbuild into .cache/web/edgectl/: edgectl.js (Preact
 * app, minified ES module) and edgectl.css. scripts/build.ts embeds both in dist/edgectl; `edgectl web`
 * names them by content hash in the page it serves (cmd/edgectl/web/web_page.ts).
 */
import { mkdirSync, renameSync } from "node:fs";
import { join } from "node:path";
import * as esbuild from "esbuild";
import { EDGECTL_WEB_OUT } from "./tools.ts";

export async function bundleEdgectlWeb(root: string): Promise<void> {
  const outdir = join(root, EDGECTL_WEB_OUT);
  mkdirSync(outdir, { recursive: true });
  await esbuild.build({
    absWorkingDir: root,
    entryPoints: { edgectl: "web/edgectl/main.tsx", "edgectl-style": "web/edgectl/style.css" },
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
  renameSync(join(outdir, "edgectl-style.css"), join(outdir, "edgectl.css"));
  await esbuild.stop();
}
