/**
 * Crash-safe file writes: the bytes go to a temporary file in the same folder, are fsynced, then
 * renamed over the target (or hard-linked to it when the target must not exist yet), and the folder
 * is fsynced so the rename itself survives a crash. Readers see the old file or the new one, never
 * half of either. Temporary names start with `.` so tree listings and the watcher skip them. A write
 * cut short by a crash leaves its temporary file behind: `removeLeftoverTemps` clears them at start.
 */
import { randomBytes } from "node:crypto";
import { link, lstat, open, readdir, rename, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

export interface AtomicWriteOptions {
  /** Fail with EEXIST instead of replacing an existing file (atomic: link(2) refuses to clobber). */
  exclusive?: boolean;
  /** File mode of the new file (default 0o644, or what the caller copies from the old file). */
  mode?: number;
  /**
   * false: no fsync of the file or its folder. For many files written together (an import), which
   * then call `syncPaths` once for all of them, so the disk's journal commits them in a few flushes.
   */
  sync?: boolean;
}

/** The temporary name used while writing `path`: `.<name>.<12 hex>.tmp`, recognisable by `isTempName`. */
function tempPath(path: string): string {
  return join(dirname(path), `.${basename(path)}.${randomBytes(6).toString("hex")}.tmp`);
}

/** Exactly the names `tempPath` makes, so a user's own `.notes.tmp` is never taken for one. */
export function isTempName(name: string): boolean {
  return /^\..+\.[0-9a-f]{12}\.tmp$/.test(name);
}

/**
 * Deletes the temporary files of writes that never finished below `dir` (hidden folders such as the
 * trash and `.obsidian` are not entered, symlinks not followed), when last modified before
 * `olderThan` (epoch ms): a younger one may belong to a write in flight in another process sharing
 * the folder. Returns their paths relative to `dir`.
 */
export async function removeLeftoverTemps(dir: string, olderThan: number): Promise<string[]> {
  const removed: string[] = [];
  const walk = async (rel: string) => {
    const entries = await readdir(join(dir, rel), { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      const path = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory() && !e.name.startsWith(".")) await walk(path);
      else if (e.isFile() && isTempName(e.name)) {
        const st = await lstat(join(dir, path)).catch(() => undefined);
        if (st && st.mtimeMs < olderThan && (await unlink(join(dir, path)).then(() => true, () => false))) {
          removed.push(path);
        }
      }
    }
  };
  await walk("");
  return removed;
}

async function fsyncDir(dir: string): Promise<void> {
  const h = await open(dir, "r");
  try {
    await h.sync();
  } catch {
    // Some filesystems refuse fsync on a directory; the data itself is already synced.
  } finally {
    await h.close();
  }
}

/**
 * link(2) refuses to replace an existing file, atomically. Filesystems without hard links (exFAT,
 * some network mounts) fall back to a check and a rename, which is exclusive only against writers
 * in this process (the store serialises those per user).
 */
async function linkOrRenameIfAbsent(tmp: string, path: string): Promise<void> {
  try {
    await link(tmp, path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== "EPERM" && code !== "ENOTSUP" && code !== "EOPNOTSUPP" && code !== "ENOSYS") throw err;
    if (await lstat(path).catch(() => undefined)) {
      throw Object.assign(new Error("file exists"), { code: "EEXIST" });
    }
    await rename(tmp, path);
  }
}

export async function atomicWrite(path: string, data: Uint8Array | string, opts: AtomicWriteOptions = {}) {
  const [err] = await atomicWriteAll([{ path, data, ...opts }]);
  if (err) throw err;
}

/** One file of `atomicWriteAll`. */
export interface AtomicWriteItem extends AtomicWriteOptions {
  path: string;
  data: Uint8Array | string;
}

/**
 * `atomicWrite` of several files at once (group commit): every temporary file written and fsynced
 * together, then each renamed or linked into place, then each folder fsynced once. When it returns,
 * every file it wrote is on disk as durably as `atomicWrite` leaves one, for the price of about one
 * fsync round rather than one per file (concurrent fsyncs share the journal's commits). Returns each
 * file's failure (undefined: written); one file's failure leaves the others written.
 */
export async function atomicWriteAll(items: readonly AtomicWriteItem[]): Promise<(Error | undefined)[]> {
  const errors: (Error | undefined)[] = items.map(() => undefined);
  const temps = await Promise.all(items.map(async (item, i) => {
    const tmp = tempPath(item.path);
    try {
      const h = await open(tmp, "wx", item.mode ?? 0o644);
      try {
        await h.writeFile(item.data);
        if (item.mode !== undefined) await h.chmod(item.mode);
        if (item.sync !== false) await h.sync();
      } finally {
        await h.close();
      }
      return tmp;
    } catch (err) {
      errors[i] = err as Error;
      await unlink(tmp).catch(() => {});
      return undefined;
    }
  }));
  await Promise.all(items.map(async (item, i) => {
    const tmp = temps[i];
    if (tmp === undefined) return;
    try {
      if (item.exclusive) {
        await linkOrRenameIfAbsent(tmp, item.path);
        await unlink(tmp).catch(() => {});
      } else {
        await rename(tmp, item.path);
      }
    } catch (err) {
      errors[i] = err as Error;
      await unlink(tmp).catch(() => {});
    }
  }));
  const dirs = new Set(
    items.filter((item, i) => !errors[i] && item.sync !== false).map((item) => dirname(item.path)),
  );
  await Promise.all([...dirs].map((dir) => fsyncDir(dir)));
  return errors;
}

/** fsyncs files written with `sync: false`, then their folders, many at a time. */
export async function syncPaths(paths: readonly string[]): Promise<void> {
  const syncOne = async (path: string) => {
    const h = await open(path, "r").catch(() => undefined);
    if (!h) return; // removed meanwhile: nothing to keep
    try {
      await h.sync().catch(() => {});
    } finally {
      await h.close();
    }
  };
  await poolOf(64, paths, syncOne);
  await poolOf(64, [...new Set(paths.map((p) => dirname(p)))], (dir) => fsyncDir(dir).catch(() => {}));
}

async function poolOf<T>(limit: number, items: readonly T[], fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
