/**
 * Bundles gitsync's web console (web/gitsync) with esbuild into .cache/web/gitsync/: gitsync.js
 * (Preact app, minified ES module) and gitsync.css. scripts/build.ts embeds both in
 * dist/gitsync-manager; controller/gitsync/console/page.ts names them by content hash.
 */
import { mkdirSync, renameSync } from "node:fs";
import { join } from "node:path";
import * as esbuild from "esbuild";

import { CONSOLE_OUT } from "./tools.ts";

export const CONSOLE_SOURCE = "web/gitsync";

/** Bundles into `outdir` (default .cache/web/gitsync; tests use their own, so a build is never raced). */
export async function bundleConsole(root: string, outdir = join(root, CONSOLE_OUT)): Promise<void> {
  mkdirSync(outdir, { recursive: true });
  await esbuild.build({
    absWorkingDir: root,
    entryPoints: { gitsync: `${CONSOLE_SOURCE}/main.tsx`, "gitsync-style": `${CONSOLE_SOURCE}/style.css` },
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
  renameSync(join(outdir, "gitsync-style.css"), join(outdir, "gitsync.css"));
  await esbuild.stop();
}

if (import.meta.main) await bundleConsole(join(import.meta.dirname!, "..", ".."));
