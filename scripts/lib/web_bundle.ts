/**
 * Bundles the browser apps with esbuild into .cache/web/<app>/: <app>.js (Preact app, minified ES
 * module) and <app>.css, and <app>.inputs.json naming the files bundled. scripts/build.ts runs it before compiling the binary that embeds the app;
 * the server names both files by content hash in the page it serves (internal/web).
 *
 *   web/admin   -> dist/memsvc            (the dashboard, /admin)
 *   web/gitsync -> dist/gitsync-manager   (`gitsync-manager console`)
 *   web/edgectl -> dist/edgectl           (`edgectl web`)
 *   web/vault   -> dist/vault             (`vault serve`, at /)
 */
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as esbuild from "esbuild";
import { WEB_APPS, type WebApp } from "./tools.ts";

/** Bundles `app` into `outdir` (default .cache/web/<app>; tests pass their own, so a build is never raced). */
export async function bundleWebApp(
  root: string,
  app: WebApp,
  outdir = join(root, WEB_APPS[app].out),
): Promise<void> {
  const source = `web/${app}`;
  mkdirSync(outdir, { recursive: true });
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: { [app]: `${source}/main.tsx`, [`${app}-style`]: `${source}/style.css` },
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
    metafile: true,
  });
  // The bundle's inputs, for the release's notices and SBOM (scripts/release/inputs.ts).
  writeFileSync(
    join(outdir, `${app}.inputs.json`),
    `${JSON.stringify(Object.keys(result.metafile.inputs).sort())}\n`,
  );
  // One CSS entry, named after the app; esbuild would otherwise call it <app>-style.css.
  renameSync(join(outdir, `${app}-style.css`), join(outdir, `${app}.css`));
  await esbuild.stop();
}

if (import.meta.main) {
  const root = join(import.meta.dirname!, "..", "..");
  for (const app of Object.keys(WEB_APPS) as WebApp[]) await bundleWebApp(root, app);
}
