/**
 * Each user's notes as files under `<dataDir>/users/<userId>/`: the Markdown (and `.canvas`) files
 * are the source of truth, so a vault can be backed up, diffed and versioned with ordinary tools.
 *
 * Every path goes through `normalizeNotePath` and, at open time, `resolveInside` (no traversal, no
 * symlink out of the user's directory). Writes are atomic (see atomic_write.ts) and, per user, one
 * at a time, so an optimistic version check and the write it guards cannot interleave with another
 * write through this store. Deleted files go to `.trash/<id>/<original path>` and can be restored.
 * The store keeps one in-memory `NoteIndex` per user (built on first use) current with its own
 * writes and with external edits the watcher reports through `applyDiskChange`.
 *
 * @example
 * const store = new NoteStore({ dataDir: "/var/lib/vault" });
 * const meta = await store.create(userId, "Projects/Plan.md", "# Plan\n[[Ideas]]");
 * await store.update(userId, "Projects/Plan.md", "# Plan v2", { ifVersion: meta.version });
 * await store.rename(userId, "Projects/Plan.md", "Archive/Plan.md"); // [[Plan]] links elsewhere follow
 * (await store.index(userId)).backlinks("Ideas.md");
 */
import { lstat, mkdir, readdir, readFile, realpath, rename, rm, rmdir, stat, utimes } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import {
  attachmentHeaders,
  type AttachmentType,
  checkAttachment,
  MAX_ATTACHMENT_BYTES,
  sniffType,
  typeForExtension,
} from "./attachment_type.ts";
import { GroupCommit } from "../../../internal/db/group_commit.ts";
import { atomicWrite, atomicWriteAll, syncPaths } from "./atomic_write.ts";
import { type Canvas, formatCanvas, parseCanvas } from "./canvas.ts";
import { contentVersion } from "./content_version.ts";
import { ConflictError, NoteError } from "./errors.ts";
import { KeyedLock } from "./keyed_lock.ts";
import { type EntryKind, entryKind, mapLimit, type TreeEntry, walkVault } from "./walk_vault.ts";
import { TreeCache } from "./tree_cache.ts";
import { rewriteCanvasLinks, rewriteLinks } from "./link_rewrite.ts";
import { NoteIndex } from "./note_index.ts";
import { PathSet } from "./resolve_link.ts";
import { isAddressableName, normalizeNotePath, resolveInside } from "./safe_path.ts";

/** Largest note or canvas accepted: 1 MiB (1,048,576 bytes) of UTF-8. */
export const MAX_NOTE_BYTES = 1024 * 1024;
/**
 * Creates of one user written together at most: enough for every client of a busy user (a batch takes
 * about one fsync round), few enough that one batch's files are not a burst on the disk.
 */
const CREATE_BATCH = 64;
/** Where deleted files wait, inside each user's directory. */
export const TRASH_DIR = ".trash";

export type { EntryKind, TreeEntry };

export { entryKind };

export interface NoteMeta {
  path: string;
  /** Pass back as `ifVersion` to update only what was read. */
  version: string;
  size: number;
  mtime: Date;
}

export interface Note extends NoteMeta {
  content: string;
}

export interface TrashEntry {
  /** Restore handle. */
  id: string;
  /** Where the file was. */
  path: string;
  deletedAt: Date;
  size: number;
}

export interface RenameResult {
  from: string;
  to: string;
  /** Every file that moved (one for a note, all files under a folder), old -> new. */
  moved: { from: string; to: string }[];
  /** Notes whose links were rewritten to follow the move. */
  rewritten: string[];
}

export interface Attachment {
  path: string;
  type: AttachmentType;
  size: number;
  bytes: Uint8Array;
  /** Serve with these: content type, nosniff, and for SVG a CSP with `script-src 'none'`. */
  headers: Record<string, string>;
}

/** What changed, reported to `onChange` for the search index and the live event channel. */
export interface NoteChange {
  userId: string;
  kind: "created" | "changed" | "deleted" | "renamed";
  path: string;
  /** For renames: where it was. */
  from?: string;
  /** Set on changes to a folder itself (created, deleted, renamed; its files are reported too). */
  folder?: true;
  /** `store` for writes through this store, `disk` for edits made behind its back. */
  source: "store" | "disk";
}

/** One file of an import (`importFiles`). */
export interface ImportFile {
  /** Where it goes in the vault (normalised by the store); below `.obsidian/` when `aside`. */
  path: string;
  bytes: Uint8Array;
  /** Kept as the file's modification time. */
  mtime?: Date;
  /** Obsidian's settings folder, kept aside: stored below `.obsidian/`, never listed, indexed or served. */
  aside?: boolean;
}

/** What `importFiles` did with one file. */
export type ImportOutcome =
  & { path: string; aside?: boolean }
  & (
    | {
      status: "created" | "updated" | "unchanged";
      kind: EntryKind;
      version: string;
      size: number;
      mtime: Date;
      /** A note's text (for the index). */
      text?: string;
    }
    | { status: "refused"; reason: string }
  );

/** The folder, inside each user's directory, where an import keeps Obsidian's settings. */
export const OBSIDIAN_DIR = ".obsidian";

export interface NoteStoreOptions {
  dataDir: string;
  onChange?: (change: NoteChange) => void;
}

const USER_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

function errno(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException)?.code;
}

const encoder = new TextEncoder();

function byteLength(s: string): number {
  return encoder.encode(s).length;
}

export class NoteStore {
  readonly dataDir: string;
  readonly #onChange: ((c: NoteChange) => void) | undefined;
  readonly #lock = new KeyedLock();
  readonly #indexes = new Map<string, Promise<NoteIndex>>();
  /** userId\0path -> version last written by this store (null: deleted by it), for echo suppression. */
  readonly #written = new Map<string, string | null>();
  /**
   * userId\0path -> the file as this store's last create or update left it (inode, size, times), so
   * the watcher's sighting of that very write is dropped by one lstat, without reading the file.
   */
  readonly #writtenStat = new Map<string, string>();
  readonly #roots = new Set<string>();
  readonly #realRoots = new Map<string, string>();
  /** Per user, the tree listing kept in memory once listed (tree_cache.ts). */
  readonly #trees = new Map<string, TreeCache>();
  /** Per user, creates waiting to be written together (`#createAll`). */
  readonly #creating = new Map<string, GroupCommit<{ rel: string; text: string }, NoteMeta | Error>>();

  constructor(opts: NoteStoreOptions) {
    this.dataDir = opts.dataDir;
    this.#onChange = opts.onChange;
  }

  /** `<dataDir>/users`, the folder the watcher watches. */
  get usersDir(): string {
    return join(this.dataDir, "users");
  }

  /** The user's directory, created (mode 0700) on first use. */
  async userRoot(userId: string): Promise<string> {
    if (typeof userId !== "string" || !USER_ID.test(userId)) {
      throw new NoteError("invalid_user", "invalid user id");
    }
    const root = join(this.usersDir, userId);
    if (!this.#roots.has(userId)) {
      await mkdir(root, { recursive: true, mode: 0o700 });
      this.#roots.add(userId);
    }
    return root;
  }

  /**
   * The normalised path and its absolute location. A path through a symlink that stays inside the
   * user's directory is reported by where it really is, so one file never has two paths in the
   * index, the trash or the events.
   */
  async #resolve(userId: string, path: unknown, allowRoot = false): Promise<{ rel: string; abs: string }> {
    const root = await this.userRoot(userId);
    const rel = normalizeNotePath(path, { allowRoot });
    let realRoot = this.#realRoots.get(userId);
    if (!realRoot) this.#realRoots.set(userId, realRoot = await realpath(root));
    const abs = await resolveInside(root, rel, realRoot);
    const real = relative(realRoot, abs).split(sep).join("/");
    if (real === rel) return { rel, abs };
    return { rel: normalizeNotePath(real, { allowRoot }), abs };
  }

  /** Creates the folders above `abs`; a file in the way is the caller's mistake, not a server error. */
  async #mkdirParent(rel: string, abs: string): Promise<void> {
    try {
      await mkdir(dirname(abs), { recursive: true });
    } catch (err) {
      const code = errno(err);
      if (code === "EEXIST" || code === "ENOTDIR") {
        throw new NoteError("invalid_path", `invalid path: a parent of ${rel} is a file`);
      }
      throw err;
    }
  }

  #emit(change: NoteChange): void {
    const tree = this.#trees.get(change.userId);
    if (tree) {
      tree.touch(change.path);
      if (change.from !== undefined) tree.touch(change.from);
    }
    try {
      this.#onChange?.(change);
    } catch {
      // A listener's failure must not fail the write that already happened.
    }
  }

  /**
   * The version of `path` as this store last wrote or read it (null: it deleted or moved it away;
   * undefined: unknown). Read it when a change is reported: the next write replaces it.
   */
  versionOf(userId: string, path: string): string | null | undefined {
    return this.#written.get(`${userId}\0${path}`);
  }

  #remember(userId: string, path: string, version: string | null): void {
    this.#written.set(`${userId}\0${path}`, version);
    this.#writtenStat.delete(`${userId}\0${path}`);
  }

  // ---- notes and canvases -------------------------------------------------------------------

  #checkText(rel: string, content: unknown): string {
    const kind = entryKind(rel);
    if (kind !== "note" && kind !== "canvas") {
      throw new NoteError("not_a_note", "note paths end in .md (canvases in .canvas)");
    }
    if (typeof content !== "string") throw new NoteError("not_a_note", "content must be text");
    if (byteLength(content) > MAX_NOTE_BYTES) {
      throw new NoteError("too_large", `content is limited to ${MAX_NOTE_BYTES} bytes`);
    }
    return kind === "canvas" ? formatCanvas(parseCanvas(content)) : content;
  }

  async #readText(rel: string, abs: string): Promise<Note> {
    const kind = entryKind(rel);
    if (kind !== "note" && kind !== "canvas") throw new NoteError("not_a_note", `${rel} is not a note`);
    let bytes: Buffer;
    try {
      bytes = await readFile(abs);
    } catch (err) {
      const code = errno(err);
      if (code === "ENOENT" || code === "ENOTDIR") throw new NoteError("not_found", `${rel} not found`);
      if (code === "EISDIR") throw new NoteError("not_a_note", `${rel} is a folder`);
      throw err;
    }
    const st = await stat(abs);
    return {
      path: rel,
      content: new TextDecoder().decode(bytes),
      version: contentVersion(bytes),
      size: bytes.length,
      mtime: st.mtime,
    };
  }

  /** Whether a file (not a folder) is at `path` now. */
  async isFile(userId: string, path: string): Promise<boolean> {
    const { abs } = await this.#resolve(userId, path);
    return (await lstat(abs).catch(() => undefined))?.isFile() ?? false;
  }

  /** A note or canvas with its current version. */
  async read(userId: string, path: string): Promise<Note> {
    const { rel, abs } = await this.#resolve(userId, path);
    return await this.#readText(rel, abs);
  }

  /** A canvas, parsed and validated (`InvalidCanvasError` if the file on disk is not valid). */
  async readCanvas(userId: string, path: string): Promise<{ canvas: Canvas } & NoteMeta> {
    const { rel, abs } = await this.#resolve(userId, path);
    if (entryKind(rel) !== "canvas") throw new NoteError("not_a_note", `${rel} is not a canvas`);
    const { content, ...meta } = await this.#readText(rel, abs);
    return { ...meta, canvas: parseCanvas(content) };
  }

  /**
   * Creates a note (or canvas, validated); `already_exists` if anything is at that path. Creates of one
   * user that arrive while another is being written are written together (group commit: one fsync
   * round for all); each is acknowledged once it is on disk.
   */
  async create(userId: string, path: string, content: string): Promise<NoteMeta> {
    // Checked against the disk (symlinks) when the batch writes it.
    await this.userRoot(userId);
    const rel = normalizeNotePath(path);
    const text = this.#checkText(rel, content);
    let batcher = this.#creating.get(userId);
    if (!batcher) {
      batcher = new GroupCommit(
        (items) => this.#lock.run(userId, () => this.#createAll(userId, items)),
        { coalesce: true, maxBatch: CREATE_BATCH },
      );
      this.#creating.set(userId, batcher);
    }
    const out = await batcher.submit({ rel, text });
    if (out instanceof Error) throw out;
    return out;
  }

  /**
   * Writes a batch of creates under the user's lock, each file atomically and all of them synced
   * together (atomicWriteAll). Never throws: each create gets its own outcome, so a batch that
   * failed is not written again one by one (its files may be in place).
   */
  async #createAll(
    userId: string,
    items: readonly { rel: string; text: string }[],
  ): Promise<(NoteMeta | Error)[]> {
    const out: (NoteMeta | Error)[] = new Array(items.length);
    const paths = await Promise.all(items.map(async (item, i) => {
      try {
        const { rel, abs } = await this.#resolve(userId, item.rel);
        await this.#mkdirParent(rel, abs);
        return { rel, abs };
      } catch (err) {
        out[i] = err as Error;
        return undefined;
      }
    }));
    // Two creates of one path in a batch: the first asked wins, as it would one at a time.
    const writes: { i: number; rel: string; abs: string; text: string }[] = [];
    const taken = new Set<string>();
    for (const [i, at] of paths.entries()) {
      if (at === undefined) continue;
      if (taken.has(at.abs)) out[i] = new NoteError("already_exists", `${at.rel} already exists`);
      else {
        taken.add(at.abs);
        writes.push({ i, rel: at.rel, abs: at.abs, text: items[i]!.text });
      }
    }
    let errors: (Error | undefined)[];
    try {
      errors = await atomicWriteAll(writes.map((w) => ({ path: w.abs, data: w.text, exclusive: true })));
    } catch (err) {
      errors = writes.map(() => err as Error);
    }
    // Reported together once all are recorded, so that the search index takes them as one batch.
    const created: string[] = [];
    await Promise.all(writes.map(async (w, k) => {
      const err = errors[k];
      if (err) {
        out[w.i] = errno(err) === "EEXIST" ? new NoteError("already_exists", `${w.rel} already exists`) : err;
        return;
      }
      try {
        out[w.i] = await this.#recordWrite(userId, w.rel, w.abs, w.text);
        created.push(w.rel);
      } catch (e) {
        out[w.i] = e as Error;
      }
    }));
    for (const rel of created) this.#emit({ userId, kind: "created", path: rel, source: "store" });
    return out;
  }

  /**
   * Replaces a note's content. With `ifVersion`, only if the note is still at that version; otherwise
   * a `ConflictError` carrying the current version, and nothing is written. Without it, the write wins.
   */
  async update(
    userId: string,
    path: string,
    content: string,
    opts: { ifVersion?: string } = {},
  ): Promise<NoteMeta> {
    const { rel } = await this.#resolve(userId, path);
    const text = this.#checkText(rel, content);
    return await this.#lock.run(userId, async () => {
      const { abs } = await this.#resolve(userId, rel);
      const current = await this.#readText(rel, abs);
      if (opts.ifVersion !== undefined && opts.ifVersion !== current.version) {
        throw new ConflictError(rel, current.version);
      }
      if (current.content === text) {
        return { path: rel, version: current.version, size: current.size, mtime: current.mtime };
      }
      const mode = (await stat(abs)).mode & 0o777;
      await atomicWrite(abs, text, { mode });
      return await this.#afterWrite(userId, rel, abs, text, "changed");
    });
  }

  async #afterWrite(userId: string, rel: string, abs: string, text: string, kind: "created" | "changed") {
    const meta = await this.#recordWrite(userId, rel, abs, text);
    this.#emit({ userId, kind, path: rel, source: "store" });
    return meta;
  }

  /** What a write of `text` at `rel` leaves known: its version (echoes), the index, the meta to answer with. */
  async #recordWrite(userId: string, rel: string, abs: string, text: string): Promise<NoteMeta> {
    const version = contentVersion(text);
    this.#remember(userId, rel, version);
    const idx = await this.#indexIfBuilt(userId);
    idx?.set(rel, text);
    const st = await stat(abs);
    this.#writtenStat.set(`${userId}\0${rel}`, statSignature(st));
    return { path: rel, version, size: byteLength(text), mtime: st.mtime };
  }

  // ---- delete, trash, restore ---------------------------------------------------------------

  /** Moves a file to the trash; returns the trash entry to restore it with. */
  async delete(userId: string, path: string): Promise<TrashEntry> {
    return await this.#lock.run(userId, async () => {
      const { rel, abs } = await this.#resolve(userId, path);
      const st = await lstat(abs).catch(() => undefined);
      if (!st) throw new NoteError("not_found", `${rel} not found`);
      if (st.isDirectory()) throw new NoteError("not_a_note", `${rel} is a folder; use deleteFolder`);
      const deletedAt = new Date();
      const id = `${deletedAt.toISOString().replace(/[-:.]/g, "")}-${crypto.randomUUID().slice(0, 8)}`;
      const root = await this.userRoot(userId);
      const dest = join(root, TRASH_DIR, id, rel);
      await mkdir(dirname(dest), { recursive: true });
      await rename(abs, dest);
      this.#remember(userId, rel, null);
      (await this.#indexIfBuilt(userId))?.delete(rel);
      this.#emit({ userId, kind: "deleted", path: rel, source: "store" });
      return { id, path: rel, deletedAt, size: st.size };
    });
  }

  /** What is in the trash, newest first. */
  async listTrash(userId: string): Promise<TrashEntry[]> {
    const trash = join(await this.userRoot(userId), TRASH_DIR);
    const ids = await readdir(trash).catch(() => [] as string[]);
    const out: TrashEntry[] = [];
    for (const id of ids) {
      const m = /^(\d{8}T\d{9}Z)-/.exec(id);
      if (!m) continue;
      const iso = m[1]!.replace(/^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)(\d{3})Z$/, "$1-$2-$3T$4:$5:$6.$7Z");
      for (const f of await walkFiles(join(trash, id))) {
        out.push({ id, path: f.path, deletedAt: new Date(iso), size: f.size });
      }
    }
    return out.sort((a, b) => b.deletedAt.getTime() - a.deletedAt.getTime() || a.path.localeCompare(b.path));
  }

  /** Puts a trashed file back where it was; `already_exists` if that path is taken again. */
  async restore(userId: string, id: string): Promise<NoteMeta> {
    if (!/^\d{8}T\d{9}Z-[0-9a-f]{8}$/.test(String(id))) {
      throw new NoteError("not_found", "no such trash entry");
    }
    return await this.#lock.run(userId, async () => {
      const root = await this.userRoot(userId);
      const dir = join(root, TRASH_DIR, id);
      const files = await walkFiles(dir);
      if (files.length !== 1) throw new NoteError("not_found", "no such trash entry");
      const rel = normalizeNotePath(files[0]!.path);
      const abs = await resolveInside(root, rel);
      if (await lstat(abs).catch(() => undefined)) {
        throw new NoteError("already_exists", `${rel} already exists`);
      }
      await this.#mkdirParent(rel, abs);
      await rename(join(dir, rel), abs);
      await rm(dir, { recursive: true, force: true });
      const bytes = await readFile(abs);
      const version = contentVersion(bytes);
      this.#remember(userId, rel, version);
      const idx = await this.#indexIfBuilt(userId);
      idx?.set(rel, entryKind(rel) === "note" ? new TextDecoder().decode(bytes) : undefined);
      this.#emit({ userId, kind: "created", path: rel, source: "store" });
      return { path: rel, version, size: bytes.length, mtime: (await stat(abs)).mtime };
    });
  }

  /** Deletes one trash entry for good, or all of them. */
  async purgeTrash(userId: string, id?: string): Promise<void> {
    const trash = join(await this.userRoot(userId), TRASH_DIR);
    if (id === undefined) return await rm(trash, { recursive: true, force: true });
    if (!/^\d{8}T\d{9}Z-[0-9a-f]{8}$/.test(String(id))) {
      throw new NoteError("not_found", "no such trash entry");
    }
    await rm(join(trash, id), { recursive: true, force: true });
  }

  // ---- rename / move ------------------------------------------------------------------------

  /**
   * Moves a file or a folder (with everything in it) and rewrites the links in other notes that
   * pointed into it (and the moved notes' own relative links). `already_exists` if `to` is taken.
   */
  async rename(userId: string, from: string, to: string): Promise<RenameResult> {
    return await this.#lock.run(userId, async () => {
      const src = await this.#resolve(userId, from);
      const dst = await this.#resolve(userId, to);
      if (src.rel === dst.rel) throw new NoteError("already_exists", `${dst.rel} already exists`);
      const st = await lstat(src.abs).catch(() => undefined);
      if (!st) throw new NoteError("not_found", `${src.rel} not found`);
      if (await lstat(dst.abs).catch(() => undefined)) {
        throw new NoteError("already_exists", `${dst.rel} already exists`);
      }
      const isDir = st.isDirectory();
      if (isDir && dst.rel.startsWith(src.rel + "/")) {
        throw new NoteError("invalid_path", "invalid path: a folder cannot move into itself");
      }
      if (!isDir && entryKind(src.rel) !== entryKind(dst.rel)) {
        throw new NoteError("not_a_note", "a rename keeps the kind of file (.md stays .md)");
      }

      const idx = await this.index(userId);
      const before = new PathSet(idx.files);
      const moves = new Map<string, string>();
      if (isDir) {
        for (const p of idx.files) {
          if (p.startsWith(src.rel + "/")) moves.set(p, dst.rel + p.slice(src.rel.length));
        }
      } else {
        moves.set(src.rel, dst.rel);
      }
      // Notes that link into what moves, found before the index changes.
      const linkers = new Set<string>();
      for (const old of moves.keys()) for (const b of idx.backlinks(old)) linkers.add(b.source);

      await this.#mkdirParent(dst.rel, dst.abs);
      await rename(src.abs, dst.abs);

      const after = new PathSet([...before].map((p) => moves.get(p) ?? p));
      const texts = new Map<string, string>();
      for (const [oldPath, newPath] of moves) {
        const bytes = await readFile(await resolveInside(await this.userRoot(userId), newPath));
        const text = entryKind(newPath) === "note" ? new TextDecoder().decode(bytes) : undefined;
        idx.delete(oldPath);
        idx.set(newPath, text);
        if (text !== undefined) texts.set(newPath, text);
        // So the watcher takes the moved files for what they are: this store's own doing.
        this.#remember(userId, newPath, contentVersion(bytes));
        this.#remember(userId, oldPath, null);
      }

      const rewritten: string[] = [];
      const ctx = { moves, before, after };
      const notes = new Map<string, string>(); // new path -> old path
      for (const l of linkers) notes.set(moves.get(l) ?? l, l);
      for (const [oldPath, newPath] of moves) if (entryKind(newPath) === "note") notes.set(newPath, oldPath);
      for (const [newPath, oldPath] of notes) {
        const abs = await resolveInside(await this.userRoot(userId), newPath);
        const text = texts.get(newPath) ?? new TextDecoder().decode(await readFile(abs));
        const out = rewriteLinks(text, oldPath, newPath, ctx);
        if (out === undefined) continue;
        await atomicWrite(abs, out, { mode: (await stat(abs)).mode & 0o777 });
        this.#remember(userId, newPath, contentVersion(out));
        idx.set(newPath, out);
        rewritten.push(newPath);
      }
      // Canvases reference files by path in their file nodes; there are few, so each is checked.
      for (const path of idx.files) {
        if (entryKind(path) !== "canvas") continue;
        const abs = await resolveInside(await this.userRoot(userId), path);
        const text = await readFile(abs, "utf8").catch(() => undefined);
        const out = text === undefined ? undefined : rewriteCanvasLinks(text, moves);
        if (out === undefined) continue;
        await atomicWrite(abs, out, { mode: (await stat(abs)).mode & 0o777 });
        this.#remember(userId, path, contentVersion(out));
        rewritten.push(path);
        const oldPath = [...moves].find(([, n]) => n === path)?.[0];
        notes.set(path, oldPath ?? path);
      }
      if (isDir) {
        this.#emit({ userId, kind: "renamed", path: dst.rel, from: src.rel, folder: true, source: "store" });
      }
      for (const [oldPath, newPath] of moves) {
        this.#emit({ userId, kind: "renamed", path: newPath, from: oldPath, source: "store" });
      }
      for (const p of rewritten) {
        if (!moves.has(notes.get(p)!)) this.#emit({ userId, kind: "changed", path: p, source: "store" });
      }
      return {
        from: src.rel,
        to: dst.rel,
        moved: [...moves].map(([f, t]) => ({ from: f, to: t })),
        rewritten: rewritten.sort(),
      };
    });
  }

  // ---- folders ------------------------------------------------------------------------------

  async createFolder(userId: string, path: string): Promise<void> {
    await this.#lock.run(userId, async () => {
      const { rel, abs } = await this.#resolve(userId, path);
      try {
        await mkdir(abs, { recursive: false });
      } catch (err) {
        if (errno(err) === "EEXIST") throw new NoteError("already_exists", `${rel} already exists`);
        if (errno(err) === "ENOTDIR") {
          throw new NoteError("invalid_path", `invalid path: a parent of ${rel} is a file`);
        }
        if (errno(err) !== "ENOENT") throw err;
        await this.#mkdirParent(rel, abs);
        await mkdir(abs);
      }
      this.#emit({ userId, kind: "created", path: rel, folder: true, source: "store" });
    });
  }

  /** The direct children of a folder ("" for the top), folders first, then by name. */
  async listFolder(userId: string, path = ""): Promise<TreeEntry[]> {
    const { rel, abs } = await this.#resolve(userId, path, true);
    let dirents;
    try {
      dirents = await readdir(abs, { withFileTypes: true });
    } catch (err) {
      if (errno(err) === "ENOENT") throw new NoteError("not_found", `${rel || "/"} not found`);
      if (errno(err) === "ENOTDIR") {
        throw new NoteError("invalid_path", `invalid path: ${rel} is not a folder`);
      }
      throw err;
    }
    const out: TreeEntry[] = [];
    for (const d of dirents) {
      if (d.name.startsWith(".") || !isAddressableName(d.name) || !(d.isFile() || d.isDirectory())) continue;
      const st = await stat(join(abs, d.name)).catch(() => undefined);
      if (!st) continue;
      const p = rel ? `${rel}/${d.name}` : d.name;
      out.push(
        d.isDirectory()
          ? { path: p, kind: "folder", mtime: st.mtime }
          : { path: p, kind: entryKind(p), size: st.size, mtime: st.mtime },
      );
    }
    return out.sort((a, b) =>
      (a.kind === "folder" ? 0 : 1) - (b.kind === "folder" ? 0 : 1) || a.path.localeCompare(b.path)
    );
  }

  /** Deletes a folder only when it is empty (`not_empty` otherwise). */
  async deleteFolder(userId: string, path: string): Promise<void> {
    await this.#lock.run(userId, async () => {
      const { rel, abs } = await this.#resolve(userId, path);
      try {
        await rmdir(abs);
      } catch (err) {
        const code = errno(err);
        if (code === "ENOENT") throw new NoteError("not_found", `${rel} not found`);
        if (code === "ENOTEMPTY" || code === "EEXIST") {
          throw new NoteError("not_empty", `${rel} is not empty`);
        }
        if (code === "ENOTDIR") throw new NoteError("invalid_path", `invalid path: ${rel} is not a folder`);
        throw err;
      }
      this.#emit({ userId, kind: "deleted", path: rel, folder: true, source: "store" });
    });
  }

  /**
   * Every folder and file of the user's vault (hidden entries and symlinks left out), sorted by path;
   * with `under`, those below that folder. `stats: false` leaves out sizes and times (the epoch
   * instead). The whole vault's listing is kept in memory and kept current with the store's writes
   * and the changes the watcher reports (tree_cache.ts); `under` and `fresh` walk the disk now (the
   * index's catch-up compares the disk itself with what is indexed).
   */
  async tree(
    userId: string,
    opts: { stats?: boolean; under?: string; fresh?: boolean } = {},
  ): Promise<TreeEntry[]> {
    const stats = opts.stats ?? true;
    let out: TreeEntry[];
    if (opts.under) {
      // One folder's subtree (nothing when it is not a folder now), with vault paths.
      const { rel, abs } = await this.#resolve(userId, opts.under);
      if (!(await lstat(abs).catch(() => undefined))?.isDirectory()) return [];
      out = (await walkVault(abs, stats)).map((e) => ({ ...e, path: `${rel}/${e.path}` }));
    } else if (opts.fresh) out = await walkVault(await this.userRoot(userId), stats);
    else {
      const listed = await this.#treeCache(userId, await this.userRoot(userId)).list();
      return stats ? [...listed] : listed.map((e) => ({ path: e.path, kind: e.kind, mtime: EPOCH }));
    }
    return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  /** The whole vault's `tree` with stats as a JSON array, times as ISO strings (kept with the listing). */
  async treeJson(userId: string): Promise<string> {
    return await this.#treeCache(userId, await this.userRoot(userId)).json();
  }

  #treeCache(userId: string, root: string): TreeCache {
    let cache = this.#trees.get(userId);
    if (!cache) this.#trees.set(userId, cache = new TreeCache(root));
    return cache;
  }

  // ---- attachments --------------------------------------------------------------------------

  /** Stores an image or PDF after checking that declared type, extension and content agree. */
  async putAttachment(
    userId: string,
    path: string,
    bytes: Uint8Array,
    declaredType: string,
    opts: { overwrite?: boolean } = {},
  ): Promise<{ path: string; type: AttachmentType; size: number; version: string }> {
    const { rel } = await this.#resolve(userId, path);
    const type = checkAttachment(rel, declaredType, bytes);
    return await this.#lock.run(userId, async () => {
      const { abs } = await this.#resolve(userId, rel);
      await this.#mkdirParent(rel, abs);
      const existed = !!(await lstat(abs).catch(() => undefined));
      try {
        await atomicWrite(abs, bytes, { exclusive: !opts.overwrite });
      } catch (err) {
        if (errno(err) === "EEXIST") throw new NoteError("already_exists", `${rel} already exists`);
        throw err;
      }
      const version = contentVersion(bytes);
      this.#remember(userId, rel, version);
      (await this.#indexIfBuilt(userId))?.set(rel);
      this.#emit({ userId, kind: existed ? "changed" : "created", path: rel, source: "store" });
      return { path: rel, type, size: bytes.length, version };
    });
  }

  /** An attachment with the headers to serve it with; refused if its content no longer matches its name. */
  async readAttachment(userId: string, path: string): Promise<Attachment> {
    const { rel, abs } = await this.#resolve(userId, path);
    const type = typeForExtension(rel);
    if (!type) throw new NoteError("unsupported_type", `${rel} is not an attachment`);
    let bytes: Uint8Array;
    try {
      bytes = await readFile(abs);
    } catch (err) {
      if (errno(err) === "ENOENT" || errno(err) === "EISDIR") {
        throw new NoteError("not_found", `${rel} not found`);
      }
      throw err;
    }
    if (sniffType(bytes) !== type) throw new NoteError("type_mismatch", `${rel} does not contain ${type}`);
    return { path: rel, type, size: bytes.length, bytes, headers: attachmentHeaders(type, bytes.length) };
  }

  // ---- import -------------------------------------------------------------------------------

  /**
   * Writes many files at once (an import): each atomically, but synced to disk together at the end.
   * New files are reported to nobody (the importer indexes them in bulk, and thousands of events
   * would flood the live channel); replaced ones are reported as changed, so an editor that has one
   * open reloads it. A file whose path already holds the
   * same bytes is left alone (`unchanged`: a re-run changes nothing); other bytes there are refused
   * unless `overwrite`. Each file is checked as the single-file routes check it: notes are UTF-8 of
   * at most 1 MiB, canvases valid JSON Canvas, attachments what their extension says, anything else
   * at most 20 MiB. `dryRun` checks and compares without writing.
   */
  async importFiles(
    userId: string,
    files: readonly ImportFile[],
    opts: { overwrite?: boolean; dryRun?: boolean } = {},
  ): Promise<ImportOutcome[]> {
    const root = await this.userRoot(userId);
    return await this.#lock.run(userId, async () => {
      const out: ImportOutcome[] = new Array(files.length);
      const written: string[] = [];
      await mapLimit([...files.keys()], 16, async (i) => {
        const f = files[i]!;
        try {
          out[i] = await this.#importOne(userId, root, f, opts, written);
        } catch (err) {
          if (!(err instanceof NoteError)) throw err;
          out[i] = {
            path: f.path,
            ...(f.aside ? { aside: true } : {}),
            status: "refused",
            reason: err.message,
          };
        }
      });
      if (written.length) await syncPaths(written);
      const tree = this.#trees.get(userId);
      for (const o of out) {
        if (o.status !== "refused" && o.status !== "unchanged" && !o.aside) tree?.touch(o.path);
      }
      for (const o of out) {
        if (o.status === "updated" && !o.aside) {
          this.#emit({ userId, kind: "changed", path: o.path, source: "store" });
        }
      }
      return out;
    });
  }

  async #importOne(
    userId: string,
    root: string,
    f: ImportFile,
    opts: { overwrite?: boolean; dryRun?: boolean },
    written: string[],
  ): Promise<ImportOutcome> {
    const rel = normalizeNotePath(f.path);
    const abs = await resolveInside(root, f.aside ? `${OBSIDIAN_DIR}/${rel}` : rel);
    const kind = entryKind(rel);
    let text: string | undefined;
    if (f.aside || kind === "file") {
      if (f.bytes.length > MAX_ATTACHMENT_BYTES) {
        throw new NoteError("too_large", `files are limited to ${MAX_ATTACHMENT_BYTES} bytes`);
      }
    } else if (kind === "attachment") {
      checkAttachment(rel, typeForExtension(rel)!, f.bytes);
    } else {
      if (f.bytes.length > MAX_NOTE_BYTES) {
        throw new NoteError("too_large", `notes and canvases are limited to ${MAX_NOTE_BYTES} bytes`);
      }
      try {
        text = new TextDecoder("utf-8", { fatal: true }).decode(f.bytes);
      } catch {
        throw new NoteError("not_a_note", "not UTF-8 text");
      }
      if (kind === "canvas") parseCanvas(text);
    }
    const version = contentVersion(f.bytes);
    const st = await lstat(abs).catch(() => undefined);
    if (st?.isDirectory()) throw new NoteError("already_exists", `a folder is at ${rel}`);
    if (st && !st.isFile()) throw new NoteError("already_exists", `something other than a file is at ${rel}`);
    const base = { path: rel, ...(f.aside ? { aside: true } : {}), kind, version, size: f.bytes.length };
    const withText = kind === "note" && !f.aside ? { text } : {};
    if (st) {
      const same = st.size === f.bytes.length && contentVersion(await readFile(abs)) === version;
      if (same) return { ...base, ...withText, status: "unchanged", mtime: st.mtime };
      if (!opts.overwrite) {
        throw new NoteError("already_exists", `${rel} exists with other content (overwrite replaces it)`);
      }
    }
    const mtime = f.mtime ?? new Date();
    const status = st ? "updated" as const : "created" as const;
    if (opts.dryRun) return { ...base, ...withText, status, mtime };
    await this.#mkdirParent(rel, abs);
    try {
      await atomicWrite(abs, f.bytes, {
        exclusive: !st,
        sync: false,
        mode: st ? st.mode & 0o777 : undefined,
      });
    } catch (err) {
      if (errno(err) === "EEXIST") throw new NoteError("already_exists", `${rel} already exists`);
      throw err;
    }
    if (f.mtime) await utimes(abs, f.mtime, f.mtime);
    written.push(abs);
    if (!f.aside) {
      this.#remember(userId, rel, version);
      (await this.#indexIfBuilt(userId))?.set(rel, text !== undefined && kind === "note" ? text : undefined);
    }
    return { ...base, ...withText, status, mtime };
  }

  /**
   * Every file of the user's vault as an export takes it: the files the tree lists, and Obsidian's
   * settings kept aside below `.obsidian/`, each with a way to read it. Not the trash.
   */
  async exportEntries(
    userId: string,
  ): Promise<{ path: string; size: number; mtime: Date; read(): Promise<Uint8Array> }[]> {
    const root = await this.userRoot(userId);
    const settings = join(root, OBSIDIAN_DIR);
    const aside = (await lstat(settings).catch(() => undefined))?.isDirectory()
      ? (await walkVault(settings, true)).map((e) => ({ ...e, path: `${OBSIDIAN_DIR}/${e.path}` }))
      : [];
    const all = [...aside, ...await walkVault(root, true)].filter((e) => e.kind !== "folder");
    return all.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)).map((e) => ({
      path: e.path,
      size: e.size ?? 0,
      mtime: e.mtime,
      read: () => readFile(join(root, e.path)),
    }));
  }

  // ---- index and external edits -------------------------------------------------------------

  /** The user's link/tag index, built from disk on first use and kept current afterwards. */
  index(userId: string): Promise<NoteIndex> {
    let p = this.#indexes.get(userId);
    if (!p) {
      p = this.#buildIndex(userId);
      this.#indexes.set(userId, p);
      p.catch(() => this.#indexes.delete(userId));
    }
    return p;
  }

  async #indexIfBuilt(userId: string): Promise<NoteIndex | undefined> {
    return await this.#indexes.get(userId);
  }

  async #buildIndex(userId: string): Promise<NoteIndex> {
    const root = await this.userRoot(userId);
    const idx = new NoteIndex();
    const entries = await walkVault(root, false);
    await mapLimit(entries, 32, async (e) => {
      if (e.kind === "folder") return;
      if (e.kind !== "note") return idx.set(e.path);
      try {
        idx.set(e.path, await readFile(join(root, e.path), "utf8"));
      } catch (err) {
        // Deleted or replaced by a folder since the walk: the write that did it updates the index.
        if (errno(err) !== "ENOENT" && errno(err) !== "EISDIR") throw err;
      }
    });
    return idx;
  }

  /**
   * Tells the store that `path` changed on disk behind its back (the watcher calls this). A file is
   * re-read and re-indexed; a folder that appeared is walked; a folder that vanished takes its files
   * with it. Returns the changes, leaving out echoes of this store's own writes and anything that is
   * not a vault path (hidden, temporary, outside the user's directory).
   */
  async applyDiskChange(userId: string, path: string): Promise<NoteChange[]> {
    let rel: string;
    try {
      rel = normalizeNotePath(path);
    } catch {
      return [];
    }
    const root = await this.userRoot(userId);
    const mine = this.#writtenStat.get(`${userId}\0${rel}`);
    if (mine !== undefined) {
      // This store's own write, as it left it: nothing changed behind its back.
      const st = await lstat(join(root, rel)).catch(() => undefined);
      if (st && statSignature(st) === mine) return [];
    }
    return await this.#lock.run(userId, async () => {
      let abs: string;
      try {
        abs = await resolveInside(root, rel);
      } catch {
        return [];
      }
      const st = await lstat(abs).catch(() => undefined);
      if (st?.isSymbolicLink()) return [];
      if (st?.isDirectory()) {
        const out: NoteChange[] = [];
        for (const e of await walkVault(abs, false)) {
          if (e.kind === "folder") continue;
          const p = `${rel}/${e.path}`;
          const c = await this.#fileChanged(userId, p, join(root, p));
          if (c) out.push(c);
        }
        return out;
      }
      if (st) {
        const c = await this.#fileChanged(userId, rel, abs);
        return c ? [c] : [];
      }
      // Gone: a file, or a folder whose indexed files went with it.
      const idx = await this.#indexIfBuilt(userId);
      const gone = idx ? [...idx.files].filter((p) => p === rel || p.startsWith(rel + "/")) : [rel];
      const out: NoteChange[] = [];
      for (const p of gone) {
        const key = `${userId}\0${p}`;
        if (this.#written.get(key) === null) continue;
        this.#written.set(key, null);
        if (idx && !idx.files.has(p)) continue;
        idx?.delete(p);
        out.push(this.#disk({ userId, kind: "deleted", path: p, source: "disk" }));
      }
      return out;
    });
  }

  async #fileChanged(userId: string, rel: string, abs: string): Promise<NoteChange | undefined> {
    const key = `${userId}\0${rel}`;
    const bytes = await readFile(abs).catch(() => undefined);
    if (!bytes) return undefined;
    const version = contentVersion(bytes);
    if (this.#written.get(key) === version) return undefined;
    const idx = await this.#indexIfBuilt(userId);
    const existed = this.#written.get(key) ? true : idx ? idx.files.has(rel) : false;
    this.#written.set(key, version);
    idx?.set(rel, entryKind(rel) === "note" ? new TextDecoder().decode(bytes) : undefined);
    return this.#disk({ userId, kind: existed ? "changed" : "created", path: rel, source: "disk" });
  }

  #disk(change: NoteChange): NoteChange {
    this.#emit(change);
    return change;
  }
}

const EPOCH = new Date(0);

/** What tells one state of a file from another without reading it. */
function statSignature(st: { ino: number; size: number; mtimeMs: number; ctimeMs: number }): string {
  return `${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
}

async function walkFiles(dir: string): Promise<{ path: string; size: number }[]> {
  const out = await walkVault(dir, true).catch((err) => {
    if (errno(err) !== "ENOENT") throw err;
    return [];
  });
  return out.filter((e) => e.kind !== "folder").map((e) => ({ path: e.path, size: e.size ?? 0 }));
}
