/**
 * What every part of the notes store shares about each user's vault: its directory, path resolution
 * inside it, the per-user write lock, what the store itself last wrote (so the watcher's sighting of
 * it is not taken for an outside edit), the link/tag index, the tree listing, and the change
 * notifications. The store's operations (note_store.ts, create_batch.ts, trash.ts, move_files.ts,
 * import_files.ts, disk_changes.ts) work through one `UserVaults`.
 */
import { mkdir, readFile, realpath, stat } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import { formatCanvas, parseCanvas } from "./canvas.ts";
import { contentVersion } from "./content_version.ts";
import { NoteError } from "./errors.ts";
import { KeyedLock } from "./keyed_lock.ts";
import { NoteIndex } from "./note_index.ts";
import {
  errno,
  MAX_NOTE_BYTES,
  type Note,
  type NoteChange,
  type NoteMeta,
  statSignature,
} from "./note_types.ts";
import { normalizeNotePath, resolveInside } from "./safe_path.ts";
import { TreeCache } from "./tree_cache.ts";
import { entryKind, mapLimit, walkVault } from "./walk_vault.ts";

const USER_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

const encoder = new TextEncoder();

export function byteLength(s: string): number {
  return encoder.encode(s).length;
}

export class UserVaults {
  readonly usersDir: string;
  /** Runs one user's writes one at a time. */
  readonly lock = new KeyedLock();
  readonly #onChange: ((c: NoteChange) => void) | undefined;
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

  constructor(usersDir: string, onChange?: (change: NoteChange) => void) {
    this.usersDir = usersDir;
    this.#onChange = onChange;
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
  async resolve(userId: string, path: unknown, allowRoot = false): Promise<{ rel: string; abs: string }> {
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
  async mkdirParent(rel: string, abs: string): Promise<void> {
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

  /** Tells the tree listing and the listener (search index, live events) what changed. */
  emit(change: NoteChange): void {
    this.touchTree(change.userId, change.path);
    if (change.from !== undefined) this.touchTree(change.userId, change.from);
    try {
      this.#onChange?.(change);
    } catch {
      // A listener's failure must not fail the write that already happened.
    }
  }

  /** Marks `path` changed in the user's tree listing, if it is kept. */
  touchTree(userId: string, path: string): void {
    this.#trees.get(userId)?.touch(path);
  }

  treeCache(userId: string, root: string): TreeCache {
    let cache = this.#trees.get(userId);
    if (!cache) this.#trees.set(userId, cache = new TreeCache(root));
    return cache;
  }

  /** The version this store last wrote or read at `path` (null: it deleted or moved it away). */
  versionOf(userId: string, path: string): string | null | undefined {
    return this.#written.get(`${userId}\0${path}`);
  }

  remember(userId: string, path: string, version: string | null): void {
    this.#written.set(`${userId}\0${path}`, version);
    this.#writtenStat.delete(`${userId}\0${path}`);
  }

  /** Records the version seen at `path` (by the watcher), leaving what is known of the file's state. */
  seen(userId: string, path: string, version: string | null): void {
    this.#written.set(`${userId}\0${path}`, version);
  }

  /** The file as this store's last create or update left it (statSignature), if it is known. */
  writtenStat(userId: string, path: string): string | undefined {
    return this.#writtenStat.get(`${userId}\0${path}`);
  }

  /** What a write of `text` at `rel` leaves known: its version (echoes), the index, the meta to answer with. */
  async recordWrite(userId: string, rel: string, abs: string, text: string): Promise<NoteMeta> {
    const version = contentVersion(text);
    this.remember(userId, rel, version);
    const idx = await this.indexIfBuilt(userId);
    idx?.set(rel, text);
    const st = await stat(abs);
    this.#writtenStat.set(`${userId}\0${rel}`, statSignature(st));
    return { path: rel, version, size: byteLength(text), mtime: st.mtime };
  }

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

  async indexIfBuilt(userId: string): Promise<NoteIndex | undefined> {
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
}

/** A note's or canvas's content as it will be written (canvases validated and formatted). */
export function checkText(rel: string, content: unknown): string {
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

/** A note or canvas on disk with its version. */
export async function readText(rel: string, abs: string): Promise<Note> {
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
