/**
 * Reading, backing up and writing host config files. Writes are atomic (a temporary file in the same
 * directory, then rename) and go to the symlink's target, so a config managed by a dotfile tool stays
 * a link; the file keeps its mode, and files we create get 0600 because they hold bearer tokens.
 */
import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import {
  chmod,
  copyFile,
  lstat,
  open,
  readdir,
  readFile,
  readlink,
  realpath,
  rename,
  rm,
  stat,
} from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";

/**
 * A config file we refuse to touch. The message names the file and what is wrong, as compilers do
 * (`path:line:column: what` when the place is known); `fix` says what the user can do about it.
 */
export class ConfigFileError extends Error {
  override name = "ConfigFileError";

  constructor(
    readonly path: string,
    detail: string,
    readonly where: { line?: number; column?: number; fix?: string } = {},
  ) {
    const at = where.line === undefined
      ? ""
      : `:${where.line}${where.column === undefined ? "" : `:${where.column}`}`;
    super(`${path}${at}: ${detail}`);
  }

  /** What to do, for an installer's report: the specific fix when known, else "fix the file". */
  get fix(): string {
    return this.where.fix ?? "fix the file";
  }
}

/** The file's text, or undefined when it does not exist. */
export async function readConfigText(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new ConfigFileError(path, (err as Error).message);
  }
}

/** The file a write to `path` must replace: the symlink's target (even a missing one), else `path`. */
export async function writeTarget(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch {
    const link = await lstat(path).catch(() => undefined);
    return link?.isSymbolicLink() ? resolve(dirname(path), await readlink(path)) : path;
  }
}

/** Replaces the file's content atomically, keeping its mode (0600 when it is new). */
export async function writeConfigText(path: string, text: string): Promise<void> {
  const target = await writeTarget(path);
  const mode = (await stat(target).catch(() => undefined))?.mode ?? 0o600;
  const temp = join(
    dirname(target),
    `.${basename(target)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`,
  );
  try {
    const file = await open(temp, "wx", 0o600);
    try {
      await file.writeFile(text);
      await file.sync();
    } finally {
      await file.close();
    }
    // The process umask could have narrowed the mode given to open; set it exactly.
    await chmod(temp, mode & 0o7777);
    await rename(temp, target);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
}

/**
 * Copies the file to `<path>.<tag>-backup-<YYYYMMDDTHHMMSSZ>` (with `-2`, `-3`... when that exists)
 * beside the path the host uses, and returns the backup's path. Backups are deleted only by
 * pruneBackups, and only ones with our own name.
 */
export async function backupConfig(path: string, tag: string, now: Date): Promise<string> {
  const stamp = now.toISOString().replace(/[-:]/g, "").replace(/\.\d+/, "");
  for (let n = 1;; n++) {
    const backup = `${path}.${tag}-backup-${stamp}${n === 1 ? "" : `-${n}`}`;
    try {
      await copyFile(path, backup, constants.COPYFILE_EXCL);
      await chmod(backup, (await stat(path)).mode & 0o7777);
      return backup;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
  }
}

/** `<stamp>` or `<stamp>-<n>` as backupConfig writes them; anything else is not ours. */
const BACKUP_SUFFIX = /^(\d{8}T\d{6}Z)(?:-(\d+))?$/;

/** Our backups of `path` (backupConfig's names only, never a user's own `.bak`), newest first. */
export async function listBackups(path: string, tag: string): Promise<string[]> {
  const prefix = `${basename(path)}.${tag}-backup-`;
  const names = await readdir(dirname(path)).catch(() => [] as string[]);
  const ours = names.flatMap((name) => {
    const match = name.startsWith(prefix) ? BACKUP_SUFFIX.exec(name.slice(prefix.length)) : null;
    return match ? [{ name, stamp: match[1]!, n: Number(match[2] ?? 1) }] : [];
  });
  ours.sort((a, b) => (a.stamp === b.stamp ? b.n - a.n : a.stamp < b.stamp ? 1 : -1));
  return ours.map((b) => join(dirname(path), b.name));
}

/** Deletes all but the `keep` newest of our backups of `path`; returns what it deleted. */
export async function pruneBackups(path: string, tag: string, keep: number): Promise<string[]> {
  const old = (await listBackups(path, tag)).slice(keep);
  for (const backup of old) await rm(backup, { force: true });
  return old;
}
