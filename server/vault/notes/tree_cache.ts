/**
 * One user's tree listing kept in memory, so that listing a vault of 10,000 notes does not stat
 * 10,000 files every time (that walk took 80–180 ms; issue 38 asks for a 30 ms p95).
 *
 * The listing is built by one walk (walk_vault.ts, stats included) and then kept current from what
 * the store reports: every change it makes or the watcher tells it (`touch`) marks a path, and the
 * next listing looks at the marked paths again (a file: one lstat; a folder: a walk of it; gone:
 * forgotten with what was below it), and at the folders above them, whose times a change moves. A
 * listing older than `maxAgeMs` is still answered, and a new walk replaces it in the background, so
 * a change nobody reported (a watch that failed, another machine's write on a network share) shows
 * within that time.
 */
import { lstat } from "node:fs/promises";
import { join } from "node:path";
import { isAddressableName, MAX_PATH_CHARS } from "./safe_path.ts";
import { entryKind, type TreeEntry, walkVault } from "./walk_vault.ts";

/** How old a listing may be before a walk in the background replaces it. */
const MAX_AGE_MS = 10_000;

export class TreeCache {
  /** Path -> entry, folders included; undefined until the first walk. */
  #entries: Map<string, TreeEntry> | undefined;
  /** The entries sorted by path, and as JSON, until the next change. */
  #sorted: TreeEntry[] | undefined;
  #json: string | undefined;
  /** The listing `#json` was made from. */
  #jsonOf: readonly TreeEntry[] | undefined;
  /** Paths reported changed since the entries last looked at them. */
  #dirty = new Set<string>();
  /** While a walk runs: paths reported since it started (it may have missed them). */
  #sinceWalk: Set<string> | undefined;
  #walking: Promise<void> | undefined;
  #walkedAt = 0;
  /** Listings one at a time: each sees every change reported before it began. */
  #queue: Promise<unknown> = Promise.resolve();

  constructor(readonly root: string, readonly maxAgeMs = MAX_AGE_MS) {}

  /** `path` (a file or a folder, or something below it) changed. */
  touch(path: string): void {
    this.#dirty.add(path);
    this.#sinceWalk?.add(path);
  }

  /**
   * `list()` as a JSON array, times as ISO strings (what the tree route answers): made once per
   * change rather than once per request (10,000 entries are 1.3 MB of JSON).
   */
  async json(): Promise<string> {
    const sorted = await this.list();
    if (this.#json === undefined || this.#jsonOf !== sorted) {
      this.#json = JSON.stringify(sorted.map((e) => ({ ...e, mtime: e.mtime.toISOString() })));
      this.#jsonOf = sorted;
    }
    return this.#json;
  }

  /** Every folder and file, sorted by path (as walkVault with stats, from memory). */
  list(): Promise<readonly TreeEntry[]> {
    const next = this.#queue.then(async () => {
      if (!this.#entries) await this.#walk();
      else if (Date.now() - this.#walkedAt > this.maxAgeMs) void this.#walk().catch(() => {});
      if (this.#dirty.size) await this.#refresh();
      return this.#sorted ??= [...this.#entries!.values()].sort((a, b) =>
        a.path < b.path ? -1 : a.path > b.path ? 1 : 0
      );
    });
    this.#queue = next.catch(() => {});
    return next;
  }

  /** A new walk of the whole tree; what was reported while it ran is looked at again after it. */
  #walk(): Promise<void> {
    this.#walking ??= (async () => {
      const started = Date.now();
      const since = this.#sinceWalk = new Set();
      try {
        const entries = new Map((await walkVault(this.root, true)).map((e) => [e.path, e]));
        this.#entries = entries;
        this.#sorted = undefined;
        this.#walkedAt = started;
      } finally {
        this.#sinceWalk = undefined;
        for (const p of since) this.#dirty.add(p);
        this.#walking = undefined;
      }
    })();
    return this.#walking;
  }

  /** The marked paths and the folders above them, as the disk has them now. */
  async #refresh(): Promise<void> {
    const entries = this.#entries!;
    const paths = [...this.#dirty];
    this.#dirty.clear();
    this.#sorted = undefined;
    const above = new Set<string>();
    for (const p of paths) {
      for (let i = p.indexOf("/"); i > 0; i = p.indexOf("/", i + 1)) above.add(p.slice(0, i));
    }
    // Folders above first: a new folder's entry is there before what is in it.
    for (const folder of [...above].sort()) await this.#look(entries, folder, false);
    for (const p of paths) await this.#look(entries, p, true);
    this.#sorted = undefined;
  }

  /** One path as the disk has it; with `deep`, a folder's contents walked again. */
  async #look(entries: Map<string, TreeEntry>, path: string, deep: boolean): Promise<void> {
    const listed = path.split("/").every((s) => !s.startsWith(".") && isAddressableName(s)) &&
      path.length <= MAX_PATH_CHARS;
    const st = listed ? await lstat(join(this.root, path)).catch(() => undefined) : undefined;
    if (!st || !(st.isFile() || st.isDirectory())) {
      this.#forget(entries, path);
      return;
    }
    if (st.isFile()) {
      const old = entries.get(path);
      if (old?.kind === "folder") this.#forget(entries, path);
      entries.set(path, { path, kind: entryKind(path), size: st.size, mtime: st.mtime });
      return;
    }
    const old = entries.get(path);
    if (old && old.kind !== "folder") entries.delete(path);
    entries.set(path, { path, kind: "folder", mtime: st.mtime });
    if (!deep) return;
    // A folder that appeared, moved here or changed below: what is in it now.
    const below = await walkVault(join(this.root, path), true).catch(() => []);
    const now = new Set(below.map((e) => `${path}/${e.path}`));
    for (const p of [...entries.keys()]) {
      if (p.startsWith(`${path}/`) && !now.has(p)) entries.delete(p);
    }
    for (const e of below) entries.set(`${path}/${e.path}`, { ...e, path: `${path}/${e.path}` });
  }

  /** A path and everything below it. */
  #forget(entries: Map<string, TreeEntry>, path: string): void {
    const had = entries.get(path);
    entries.delete(path);
    if (had && had.kind !== "folder") return;
    for (const p of [...entries.keys()]) if (p.startsWith(`${path}/`)) entries.delete(p);
  }
}
