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
import { lstat, mkdir, readdir, readFile, rmdir, stat } from "node:fs/promises";
import { join } from "node:path";
import {
  attachmentHeaders,
  type AttachmentType,
  checkAttachment,
  sniffType,
  typeForExtension,
} from "./attachment_type.ts";
import { atomicWrite } from "./atomic_write.ts";
import { type Canvas, parseCanvas } from "./canvas.ts";
import { contentVersion } from "./content_version.ts";
import { CreateBatcher } from "./create_batch.ts";
import { applyDiskChange } from "./disk_changes.ts";
import { ConflictError, NoteError } from "./errors.ts";
import { exportEntries, importFiles } from "./import_files.ts";
import { moveFiles } from "./move_files.ts";
import type { NoteIndex } from "./note_index.ts";
import {
  type Attachment,
  errno,
  type ImportFile,
  type ImportOutcome,
  type Note,
  type NoteChange,
  type NoteMeta,
  type RenameResult,
  type TrashEntry,
} from "./note_types.ts";
import { isAddressableName } from "./safe_path.ts";
import { listTrash, purgeTrash, restoreFile, trashFile } from "./trash.ts";
import { checkText, readText, UserVaults } from "./user_vaults.ts";
import { entryKind, type TreeEntry, walkVault } from "./walk_vault.ts";

export interface NoteStoreOptions {
  dataDir: string;
  onChange?: (change: NoteChange) => void;
}

export class NoteStore {
  readonly dataDir: string;
  readonly #vaults: UserVaults;
  readonly #creates: CreateBatcher;

  constructor(opts: NoteStoreOptions) {
    this.dataDir = opts.dataDir;
    this.#vaults = new UserVaults(join(opts.dataDir, "users"), opts.onChange);
    this.#creates = new CreateBatcher(this.#vaults);
  }

  /** `<dataDir>/users`, the folder the watcher watches. */
  get usersDir(): string {
    return this.#vaults.usersDir;
  }

  /** The user's directory, created (mode 0700) on first use. */
  async userRoot(userId: string): Promise<string> {
    return await this.#vaults.userRoot(userId);
  }

  /**
   * The version of `path` as this store last wrote or read it (null: it deleted or moved it away;
   * undefined: unknown). Read it when a change is reported: the next write replaces it.
   */
  versionOf(userId: string, path: string): string | null | undefined {
    return this.#vaults.versionOf(userId, path);
  }

  // ---- notes and canvases -------------------------------------------------------------------

  /** Whether a file (not a folder) is at `path` now. */
  async isFile(userId: string, path: string): Promise<boolean> {
    const { abs } = await this.#vaults.resolve(userId, path);
    return (await lstat(abs).catch(() => undefined))?.isFile() ?? false;
  }

  /** A note or canvas with its current version. */
  async read(userId: string, path: string): Promise<Note> {
    const { rel, abs } = await this.#vaults.resolve(userId, path);
    return await readText(rel, abs);
  }

  /** A canvas, parsed and validated (`InvalidCanvasError` if the file on disk is not valid). */
  async readCanvas(userId: string, path: string): Promise<{ canvas: Canvas } & NoteMeta> {
    const { rel, abs } = await this.#vaults.resolve(userId, path);
    if (entryKind(rel) !== "canvas") throw new NoteError("not_a_note", `${rel} is not a canvas`);
    const { content, ...meta } = await readText(rel, abs);
    return { ...meta, canvas: parseCanvas(content) };
  }

  /**
   * Creates a note (or canvas, validated); `already_exists` if anything is at that path. Creates of one
   * user that arrive while another is being written are written together (group commit: one fsync
   * round for all, create_batch.ts); each is acknowledged once it is on disk.
   */
  async create(userId: string, path: string, content: string): Promise<NoteMeta> {
    return await this.#creates.create(userId, path, content);
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
    const { rel } = await this.#vaults.resolve(userId, path);
    const text = checkText(rel, content);
    return await this.#vaults.lock.run(userId, async () => {
      const { abs } = await this.#vaults.resolve(userId, rel);
      const current = await readText(rel, abs);
      if (opts.ifVersion !== undefined && opts.ifVersion !== current.version) {
        throw new ConflictError(rel, current.version);
      }
      if (current.content === text) {
        return { path: rel, version: current.version, size: current.size, mtime: current.mtime };
      }
      const mode = (await stat(abs)).mode & 0o777;
      await atomicWrite(abs, text, { mode });
      const meta = await this.#vaults.recordWrite(userId, rel, abs, text);
      this.#vaults.emit({ userId, kind: "changed", path: rel, source: "store" });
      return meta;
    });
  }

  // ---- delete, trash, restore (trash.ts) ----------------------------------------------------

  /** Moves a file to the trash; returns the trash entry to restore it with. */
  async delete(userId: string, path: string): Promise<TrashEntry> {
    return await trashFile(this.#vaults, userId, path);
  }

  /** What is in the trash, newest first. */
  async listTrash(userId: string): Promise<TrashEntry[]> {
    return await listTrash(this.#vaults, userId);
  }

  /** Puts a trashed file back where it was; `already_exists` if that path is taken again. */
  async restore(userId: string, id: string): Promise<NoteMeta> {
    return await restoreFile(this.#vaults, userId, id);
  }

  /** Deletes one trash entry for good, or all of them. */
  async purgeTrash(userId: string, id?: string): Promise<void> {
    return await purgeTrash(this.#vaults, userId, id);
  }

  // ---- rename / move (move_files.ts) --------------------------------------------------------

  /**
   * Moves a file or a folder (with everything in it) and rewrites the links in other notes that
   * pointed into it (and the moved notes' own relative links). `already_exists` if `to` is taken.
   */
  async rename(userId: string, from: string, to: string): Promise<RenameResult> {
    return await moveFiles(this.#vaults, userId, from, to);
  }

  // ---- folders ------------------------------------------------------------------------------

  async createFolder(userId: string, path: string): Promise<void> {
    await this.#vaults.lock.run(userId, async () => {
      const { rel, abs } = await this.#vaults.resolve(userId, path);
      try {
        await mkdir(abs, { recursive: false });
      } catch (err) {
        if (errno(err) === "EEXIST") throw new NoteError("already_exists", `${rel} already exists`);
        if (errno(err) === "ENOTDIR") {
          throw new NoteError("invalid_path", `invalid path: a parent of ${rel} is a file`);
        }
        if (errno(err) !== "ENOENT") throw err;
        await this.#vaults.mkdirParent(rel, abs);
        await mkdir(abs);
      }
      this.#vaults.emit({ userId, kind: "created", path: rel, folder: true, source: "store" });
    });
  }

  /** The direct children of a folder ("" for the top), folders first, then by name. */
  async listFolder(userId: string, path = ""): Promise<TreeEntry[]> {
    const { rel, abs } = await this.#vaults.resolve(userId, path, true);
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
    await this.#vaults.lock.run(userId, async () => {
      const { rel, abs } = await this.#vaults.resolve(userId, path);
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
      this.#vaults.emit({ userId, kind: "deleted", path: rel, folder: true, source: "store" });
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
      const { rel, abs } = await this.#vaults.resolve(userId, opts.under);
      if (!(await lstat(abs).catch(() => undefined))?.isDirectory()) return [];
      out = (await walkVault(abs, stats)).map((e) => ({ ...e, path: `${rel}/${e.path}` }));
    } else if (opts.fresh) out = await walkVault(await this.#vaults.userRoot(userId), stats);
    else {
      const listed = await this.#vaults.treeCache(userId, await this.#vaults.userRoot(userId)).list();
      return stats ? [...listed] : listed.map((e) => ({ path: e.path, kind: e.kind, mtime: EPOCH }));
    }
    return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  /** The whole vault's `tree` with stats as a JSON array, times as ISO strings (kept with the listing). */
  async treeJson(userId: string): Promise<string> {
    return await this.#vaults.treeCache(userId, await this.#vaults.userRoot(userId)).json();
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
    const { rel } = await this.#vaults.resolve(userId, path);
    const type = checkAttachment(rel, declaredType, bytes);
    return await this.#vaults.lock.run(userId, async () => {
      const { abs } = await this.#vaults.resolve(userId, rel);
      await this.#vaults.mkdirParent(rel, abs);
      const existed = !!(await lstat(abs).catch(() => undefined));
      try {
        await atomicWrite(abs, bytes, { exclusive: !opts.overwrite });
      } catch (err) {
        if (errno(err) === "EEXIST") throw new NoteError("already_exists", `${rel} already exists`);
        throw err;
      }
      const version = contentVersion(bytes);
      this.#vaults.remember(userId, rel, version);
      (await this.#vaults.indexIfBuilt(userId))?.set(rel);
      this.#vaults.emit({ userId, kind: existed ? "changed" : "created", path: rel, source: "store" });
      return { path: rel, type, size: bytes.length, version };
    });
  }

  /** An attachment with the headers to serve it with; refused if its content no longer matches its name. */
  async readAttachment(userId: string, path: string): Promise<Attachment> {
    const { rel, abs } = await this.#vaults.resolve(userId, path);
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

  // ---- import and export (import_files.ts) -------------------------------------------------

  /**
   * Writes many files at once (an import): each atomically, but synced to disk together at the end.
   * New files are reported to nobody (the importer indexes them in bulk); replaced ones are reported
   * as changed. See import_files.ts for what is checked, left alone and refused.
   */
  async importFiles(
    userId: string,
    files: readonly ImportFile[],
    opts: { overwrite?: boolean; dryRun?: boolean } = {},
  ): Promise<ImportOutcome[]> {
    return await importFiles(this.#vaults, userId, files, opts);
  }

  /**
   * Every file of the user's vault as an export takes it: the files the tree lists, and Obsidian's
   * settings kept aside below `.obsidian/`, each with a way to read it. Not the trash.
   */
  async exportEntries(
    userId: string,
  ): Promise<{ path: string; size: number; mtime: Date; read(): Promise<Uint8Array> }[]> {
    return await exportEntries(this.#vaults, userId);
  }

  // ---- index and external edits (disk_changes.ts) -------------------------------------------

  /** The user's link/tag index, built from disk on first use and kept current afterwards. */
  index(userId: string): Promise<NoteIndex> {
    return this.#vaults.index(userId);
  }

  /**
   * Tells the store that `path` changed on disk behind its back (the watcher calls this). Returns the
   * changes, leaving out echoes of this store's own writes and anything that is not a vault path.
   */
  async applyDiskChange(userId: string, path: string): Promise<NoteChange[]> {
    return await applyDiskChange(this.#vaults, userId, path);
  }
}

const EPOCH = new Date(0);
