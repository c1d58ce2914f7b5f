/**
 * One user's link graph and tags, in memory: every file's path, and the parsed metadata of every
 * Markdown note. Backlinks are computed on demand: only notes that have a link whose last name
 * matches the target's are resolved, so a query stays cheap at 10,000 notes. The store keeps this
 * current on its own writes and on external edits the watcher reports; the search engineer may
 * persist it later.
 */
import type { NoteLink } from "./links.ts";
import { type ParsedNote, parseNote } from "./parse_note.ts";
import { candidateNames, fileName, linkSpec, PathSet, resolveLink } from "./resolve_link.ts";

export interface Backlink {
  /** The note that links. */
  source: string;
  /** Its links that resolve to the target (a note may link several times). */
  links: NoteLink[];
}

export interface GraphEdge {
  source: string;
  target: string;
}

/** The lower-case file names a link can resolve to (resolve_link.ts). */
function linkNames(link: NoteLink): string[] {
  return candidateNames(linkSpec(link));
}

export class NoteIndex {
  readonly files = new PathSet();
  readonly #notes = new Map<string, ParsedNote>();
  /** lower-case file name -> notes with a link that may resolve to a file of that name. */
  readonly #linkersByName = new Map<string, Set<string>>();

  /** Records a file; Markdown notes are parsed from `text`. */
  set(path: string, text?: string): void {
    this.#forgetLinks(path);
    this.files.add(path);
    if (text === undefined || !path.toLowerCase().endsWith(".md")) {
      this.#notes.delete(path);
      return;
    }
    const parsed = parseNote(path, text);
    this.#notes.set(path, parsed);
    for (const link of parsed.links) {
      for (const name of linkNames(link)) {
        let s = this.#linkersByName.get(name);
        if (!s) this.#linkersByName.set(name, s = new Set());
        s.add(path);
      }
    }
  }

  delete(path: string): void {
    this.#forgetLinks(path);
    this.#notes.delete(path);
    this.files.delete(path);
  }

  #forgetLinks(path: string): void {
    const old = this.#notes.get(path);
    if (!old) return;
    for (const link of old.links) {
      for (const name of linkNames(link)) this.#linkersByName.get(name)?.delete(path);
    }
  }

  note(path: string): ParsedNote | undefined {
    return this.#notes.get(path);
  }

  notes(): IterableIterator<[string, ParsedNote]> {
    return this.#notes.entries();
  }

  /** Outgoing links of `path`, each with the file it resolves to (undefined: unresolved). */
  outgoing(path: string): { link: NoteLink; resolved: string | undefined }[] {
    const parsed = this.#notes.get(path);
    if (!parsed) return [];
    return parsed.links.map((link) => ({ link, resolved: resolveLink(link, path, this.files) }));
  }

  /** Notes linking to `path`, sorted by source path. */
  backlinks(path: string): Backlink[] {
    const candidates = this.#linkersByName.get(fileName(path)) ?? [];
    const out: Backlink[] = [];
    for (const source of candidates) {
      const parsed = this.#notes.get(source);
      if (!parsed) continue;
      const links = parsed.links.filter((l) => resolveLink(l, source, this.files) === path);
      // A note's links to itself (`[[#heading]]`) are not backlinks.
      if (links.length && source !== path) out.push({ source, links });
    }
    return out.sort((a, b) => (a.source < b.source ? -1 : a.source > b.source ? 1 : 0));
  }

  /** Every resolved link between two different files, once per pair. */
  graph(): { nodes: string[]; edges: GraphEdge[] } {
    const edges: GraphEdge[] = [];
    for (const [source] of this.#notes) {
      const seen = new Set<string>();
      for (const { resolved } of this.outgoing(source)) {
        if (resolved && resolved !== source && !seen.has(resolved)) {
          seen.add(resolved);
          edges.push({ source, target: resolved });
        }
      }
    }
    return { nodes: [...this.files].sort(), edges };
  }

  /** Links that resolve to no file: target as written -> the notes that have it (graph's "ghost" nodes). */
  unresolved(): Map<string, string[]> {
    const out = new Map<string, string[]>();
    for (const [source] of this.#notes) {
      for (const { link, resolved } of this.outgoing(source)) {
        if (resolved || (link.kind === "wiki" && link.target === "")) continue;
        const list = out.get(link.target) ?? [];
        if (!list.includes(source)) list.push(source);
        out.set(link.target, list);
      }
    }
    return out;
  }

  /** Notes tagged `tag` or a nested tag under it (`project` finds `project/alpha`), sorted. */
  tagged(tag: string): string[] {
    const want = tag.replace(/^#/, "").toLowerCase();
    const out: string[] = [];
    for (const [path, parsed] of this.#notes) {
      if (parsed.tags.some((t) => t.toLowerCase() === want || t.toLowerCase().startsWith(want + "/"))) {
        out.push(path);
      }
    }
    return out.sort();
  }

  /** Tag -> notes carrying it (first spelling seen wins; compared case-insensitively). */
  tags(): Map<string, string[]> {
    const byLower = new Map<string, { tag: string; paths: string[] }>();
    for (const [path, parsed] of this.#notes) {
      for (const tag of parsed.tags) {
        const key = tag.toLowerCase();
        const e = byLower.get(key) ?? { tag, paths: [] };
        e.paths.push(path);
        byLower.set(key, e);
      }
    }
    return new Map([...byLower.values()].map((e) => [e.tag, e.paths.sort()]));
  }
}
