/**
 * The file system a checkout reads a clone through. For every object isomorphic-git asks whether the
 * gitdir exists, tries the loose object's file and lists objects/pack: three system calls per object, a
 * third of a 10,000-file checkout's CPU. A checkout holds the clone (withClone), so nothing changes it
 * meanwhile and those three answers are read once; a loose object whose folder exists is still read
 * from disk. Everything else goes to node:fs.
 */
import * as fs from "node:fs";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";

const notFound = (path: string) => Object.assign(new Error(`ENOENT: ${path}`), { code: "ENOENT" });

/** An fs for isomorphic-git (promise style: every function returns a promise) over the clone at `gitdir`. */
export function readOnlyCloneFs(gitdir: string) {
  const p = fs.promises;
  const objects = join(gitdir, "objects");
  const packDir = join(objects, "pack");
  const list = (dir: string) => {
    try {
      return readdirSync(dir);
    } catch {
      return [];
    }
  };
  const looseFolders = new Set(list(objects).filter((name) => /^[0-9a-f]{2}$/.test(name)));
  const packs = list(packDir);
  const gitdirStat = statSync(gitdir);
  // objects/xx/<38 hex>: a loose object, absent unless its folder is there.
  const isMissingLoose = (path: string) =>
    path.length === objects.length + 42 && path.startsWith(`${objects}/`) &&
    !looseFolders.has(path.slice(objects.length + 1, objects.length + 3));
  return {
    promises: {
      readFile: async (path: string, options?: unknown) => {
        if (isMissingLoose(path)) throw notFound(path);
        return await p.readFile(path, options as never);
      },
      readdir: async (path: string, options?: unknown) =>
        path === packDir ? [...packs] : await p.readdir(path, options as never),
      stat: async (path: string, options?: unknown) =>
        path === gitdir ? gitdirStat : await p.stat(path, options as never),
      lstat: p.lstat.bind(p),
      writeFile: p.writeFile.bind(p),
      mkdir: p.mkdir.bind(p),
      rmdir: p.rmdir.bind(p),
      unlink: p.unlink.bind(p),
      readlink: p.readlink.bind(p),
      symlink: p.symlink.bind(p),
    },
  };
}
