/**
 * A checked-out tree as the renderers get it: path -> bytes, `/`-separated, relative to the root.
 * Symlinks are followed inside the tree; one that leaves it (absolute, or up past the root, or a loop)
 * refuses the whole tree (seed section 8), whether the tree came from a Git commit or a local folder.
 */
import { posix } from "node:path";

export type Tree = ReadonlyMap<string, Uint8Array>;

/** `files` with every link of `links` (path -> target) added as a copy of the file it ends at. */
export function followLinks(
  files: Map<string, Uint8Array>,
  links: ReadonlyMap<string, string>,
  refused: (path: string, target: string) => Error,
): Map<string, Uint8Array> {
  for (const [path, target] of links) {
    const resolved = resolveLink(path, target, links);
    if (resolved === undefined) throw refused(path, target);
    const content = files.get(resolved);
    if (content) files.set(path, content);
  }
  return files;
}

/** The in-tree path a symlink ends at, or undefined when it leaves the tree (or loops). */
function resolveLink(path: string, target: string, links: ReadonlyMap<string, string>): string | undefined {
  let at = path;
  let to = target;
  for (let hops = 0; hops < 16; hops++) {
    if (to.startsWith("/")) return undefined;
    const next = posix.normalize(posix.join(posix.dirname(at), to));
    if (next === ".." || next.startsWith("../")) return undefined;
    const further = links.get(next);
    if (further === undefined) return next;
    at = next;
    to = further;
  }
  return undefined;
}
