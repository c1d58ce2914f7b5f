/**
 * Which file a link points to, Obsidian's way: the exact vault path first, then the path relative
 * to the linking note's folder, then the file whose path ends with what is written (`note` finds
 * `any/folder/note.md`); when several end that way, the one with the shortest path wins, then the
 * alphabetically first, so the answer never depends on listing order. Links written without an
 * extension mean a `.md` note. Matching falls back to case-insensitive, as on macOS and Windows.
 */
import { posix } from "node:path";
import type { NoteLink } from "./links.ts";

/** The set of files of one vault, with a lookup by lower-case file name. */
export class PathSet {
  readonly #paths = new Set<string>();
  readonly #lower = new Map<string, Set<string>>();
  readonly #byName = new Map<string, Set<string>>();

  constructor(paths: Iterable<string> = []) {
    for (const p of paths) this.add(p);
  }

  get size(): number {
    return this.#paths.size;
  }

  has(path: string): boolean {
    return this.#paths.has(path);
  }

  add(path: string): void {
    if (this.#paths.has(path)) return;
    this.#paths.add(path);
    addTo(this.#lower, path.toLowerCase(), path);
    addTo(this.#byName, posix.basename(path).toLowerCase(), path);
  }

  delete(path: string): void {
    if (!this.#paths.delete(path)) return;
    removeFrom(this.#lower, path.toLowerCase(), path);
    removeFrom(this.#byName, posix.basename(path).toLowerCase(), path);
  }

  /** The stored spelling of `path`, matched exactly, else case-insensitively. */
  find(path: string): string | undefined {
    if (this.#paths.has(path)) return path;
    const ci = this.#lower.get(path.toLowerCase());
    return ci ? pick(ci) : undefined;
  }

  /** Files named `name` (case-insensitive). */
  named(name: string): ReadonlySet<string> {
    return this.#byName.get(name.toLowerCase()) ?? EMPTY;
  }

  [Symbol.iterator](): IterableIterator<string> {
    return this.#paths.values();
  }
}

const EMPTY: ReadonlySet<string> = new Set();

function addTo(map: Map<string, Set<string>>, key: string, value: string) {
  let s = map.get(key);
  if (!s) map.set(key, s = new Set());
  s.add(value);
}

function removeFrom(map: Map<string, Set<string>>, key: string, value: string) {
  const s = map.get(key);
  if (!s) return;
  s.delete(value);
  if (s.size === 0) map.delete(key);
}

/** Shortest path first, then alphabetical. */
function pick(candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  for (const c of candidates) {
    if (best === undefined || c.length < best.length || (c.length === best.length && c < best)) best = c;
  }
  return best;
}

function withMd(target: string): string[] {
  return posix.extname(target) ? [target, target + ".md"] : [target + ".md", target];
}

/** Resolves a target as written (`note`, `folder/note`, `note.md`, `img.png`) from the note `from`. */
export function resolveTarget(target: string, from: string, files: PathSet): string | undefined {
  const t = target.replace(/^\/+/, "");
  if (t === "") return files.has(from) ? from : undefined;
  const forms = withMd(t);
  for (const f of forms) {
    const hit = files.find(posix.normalize(f));
    if (hit) return hit;
  }
  const dir = posix.dirname(from);
  if (dir !== ".") {
    for (const f of forms) {
      const rel = posix.normalize(posix.join(dir, f));
      if (!rel.startsWith("../")) {
        const hit = files.find(rel);
        if (hit) return hit;
      }
    }
  }
  for (const f of forms) {
    const name = posix.basename(f);
    const suffix = "/" + f.toLowerCase();
    const matches = [...files.named(name)].filter((p) =>
      p.toLowerCase() === f.toLowerCase() || p.toLowerCase().endsWith(suffix)
    );
    const hit = pick(matches);
    if (hit) return hit;
  }
  return undefined;
}

/** The file a parsed link points to, or undefined when it points to nothing (yet). */
export function resolveLink(link: NoteLink, from: string, files: PathSet): string | undefined {
  if (link.kind === "markdown") {
    for (const f of withMd(link.target)) {
      const hit = files.find(f);
      if (hit) return hit;
    }
    // Obsidian also writes Markdown links in "shortest path" form; resolve those like wiki targets.
    const written = link.dest.startsWith("<") ? link.dest.slice(1, -1) : link.dest;
    const bare = written.split("#")[0]!;
    try {
      return resolveTarget(decodeURIComponent(bare), from, files);
    } catch {
      return resolveTarget(bare, from, files);
    }
  }
  return resolveTarget(link.target, from, files);
}

/**
 * How a wiki link to `path` should be written so it resolves back to it: the bare name when that is
 * unique in the vault, else the full path; without `.md` for notes.
 */
export function shortestLinkText(path: string, files: PathSet): string {
  const name = posix.basename(path);
  const text = path.endsWith(".md") ? path.slice(0, -3) : path;
  const short = name.endsWith(".md") ? name.slice(0, -3) : name;
  return files.named(name).size <= 1 ? short : text;
}
