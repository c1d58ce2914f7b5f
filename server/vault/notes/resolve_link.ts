/**
 * Which file a link points to, Obsidian's way (docs/vault.md, "Links"): the exact vault path first
 * (Obsidian: "Folder paths start at the vault root"), then the path relative to the linking note's
 * folder, then the file whose path ends with what is written (`note` finds `any/folder/note.md`);
 * when several end that way, the one with the shortest path wins, then the alphabetically first, so
 * the answer never depends on listing order. Links written without an extension mean a `.md` note.
 * Matching falls back to case-insensitive, as on macOS and Windows.
 *
 * One implementation for every index: the notes library's in-memory `NoteIndex` and the database's
 * link table (server/vault/search/link_targets.ts) both call `resolveSpec`. A link can only ever
 * resolve to a file whose lower-case name is one of `candidateNames(spec)`, so resolving against
 * only the files of those names gives the same answer as resolving against the whole vault: that
 * is what lets the database re-resolve just the links a created, moved or deleted file can change.
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

/** What a link needs to be resolved (again, later): stored with each link in the database. */
export interface LinkSpec {
  /** Wiki links: the target as written; Markdown links: the destination resolved against the note's folder. */
  target: string;
  /** Markdown links only: the destination as written, percent-decoded, without `#fragment`. */
  dest?: string;
}

/** The spec of a parsed link. */
export function linkSpec(link: NoteLink): LinkSpec {
  if (link.kind !== "markdown") return { target: link.target };
  const written = link.dest.startsWith("<") ? link.dest.slice(1, -1) : link.dest;
  const bare = written.split("#")[0]!;
  let dest = bare;
  try {
    dest = decodeURIComponent(bare);
  } catch { /* as written */ }
  return { target: link.target, dest };
}

/** The lower-case name of a file, as `candidateNames` compares it. */
export function fileName(path: string): string {
  return posix.basename(path).toLowerCase();
}

/** The lower-case names of the files `spec` may resolve to: its own name, and with `.md` added. */
export function candidateNames(spec: LinkSpec): string[] {
  const name = fileName(spec.target);
  return name ? [name, name + ".md"] : [];
}

/** The `fileName`s of links that a file named `name` may be the target of (the inverse of candidateNames). */
export function linkNamesFor(name: string): string[] {
  return name.endsWith(".md") && name.length > 3 ? [name, name.slice(0, -3)] : [name];
}

/** Resolves a target as written (`note`, `folder/note`, `note.md`, `img.png`) from the note `from`. */
export function resolveTarget(target: string, from: string, files: PathSet): string | undefined {
  return resolveSpec({ target }, from, files);
}

/**
 * The file a link resolves to from the note `from`, or undefined when there is none (yet). A hit
 * whose name is not one of the spec's candidate names (`a/x/..` normalises to `a`) is no hit.
 */
export function resolveSpec(spec: LinkSpec, from: string, files: PathSet): string | undefined {
  if (spec.target.replace(/^\/+/, "") === "") return files.has(from) ? from : undefined;
  const names = candidateNames(spec);
  const ok = (
    hit: string | undefined,
  ) => (hit !== undefined && names.includes(fileName(hit)) ? hit : undefined);
  if (spec.dest !== undefined) {
    for (const f of withMd(spec.target)) {
      const hit = ok(files.find(f));
      if (hit) return hit;
    }
    // Obsidian also writes Markdown links in "shortest path" form; resolve those like wiki targets.
    return fileName(spec.dest) === fileName(spec.target) ? byName(spec.dest, from, files, ok) : undefined;
  }
  return byName(spec.target, from, files, ok);
}

function byName(
  target: string,
  from: string,
  files: PathSet,
  ok: (hit: string | undefined) => string | undefined,
): string | undefined {
  const t = target.replace(/^\/+/, "");
  const forms = withMd(t);
  for (const f of forms) {
    const hit = ok(files.find(posix.normalize(f)));
    if (hit) return hit;
  }
  const dir = posix.dirname(from);
  if (dir !== ".") {
    for (const f of forms) {
      const rel = posix.normalize(posix.join(dir, f));
      if (!rel.startsWith("../")) {
        const hit = ok(files.find(rel));
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
    const hit = ok(pick(matches));
    if (hit) return hit;
  }
  return undefined;
}

/** The file a parsed link points to, or undefined when it points to nothing (yet). */
export function resolveLink(link: NoteLink, from: string, files: PathSet): string | undefined {
  return resolveSpec(linkSpec(link), from, files);
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
