import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";

/**
 * Whether the module of `meta` is the program's entry point. Deno, Bun and compiled binaries say so in
 * `import.meta.main`; Node 20 does not have it, so compare the module's file with `process.argv[1]`,
 * both resolved with realpath: npm starts a package's bin through a symlink (node_modules/.bin/<tool>,
 * npx's cache), and a plain comparison there fails and the tool exits silently doing nothing.
 *
 * Pass the fields, not import.meta itself: a CommonJS bundle (the compiled binaries) has no import.meta
 * object, only the fields Bun rewrites.
 *
 * @example
 * if (isMain({ main: import.meta.main, url: import.meta.url })) void run(buildProgram());
 */
export function isMain(
  meta: { main?: boolean; url: string },
  argv1: string | undefined = process.argv[1],
): boolean {
  if (typeof meta.main === "boolean") return meta.main;
  if (!argv1 || !meta.url.startsWith("file:")) return false;
  try {
    return realpathSync(argv1) === realpathSync(fileURLToPath(meta.url));
  } catch {
    return false;
  }
}
