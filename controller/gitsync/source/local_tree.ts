/**
 * A local folder read as a tree, for `gitsync-manager render --repository <dir>` (the controller itself
 * never reads local paths). `.git` is skipped; symlinks follow the same rule as in a commit.
 */
import { lstat, readdir, readFile, readlink } from "node:fs/promises";
import { join } from "node:path";
import { followLinks } from "./tree.ts";

export class LocalTreeError extends Error {
  override name = "LocalTreeError";
}

export async function readLocalTree(
  root: string,
  limits: { maxFiles?: number; maxBytes?: number } = {},
): Promise<Map<string, Uint8Array>> {
  const maxFiles = limits.maxFiles ?? 20_000;
  const maxBytes = limits.maxBytes ?? 256 * 1024 * 1024;
  const files = new Map<string, Uint8Array>();
  const links = new Map<string, string>();
  let total = 0;
  const walk = async (dir: string, prefix: string) => {
    for (const name of (await readdir(join(root, dir))).sort()) {
      if (!prefix && name === ".git") continue;
      const path = prefix ? `${prefix}/${name}` : name;
      const st = await lstat(join(root, path));
      if (st.isDirectory()) await walk(path, path);
      else if (st.isSymbolicLink()) links.set(path, await readlink(join(root, path)));
      else if (st.isFile()) {
        total += st.size;
        if (files.size + links.size >= maxFiles || total > maxBytes) {
          throw new LocalTreeError(
            `${root} is larger than the limits (${maxFiles} files, ${maxBytes} bytes)`,
          );
        }
        files.set(path, new Uint8Array(await readFile(join(root, path))));
      }
    }
  };
  await walk("", "");
  return followLinks(
    files,
    links,
    (path, target) => new LocalTreeError(`symlink ${path} -> ${target} resolves outside ${root}`),
  );
}
