/**
 * An exclusive lock on a PGlite data directory. PGlite has no protection against two processes
 * opening the same directory, and two writers corrupt it, so the first opener writes its pid to
 * `<dir>/.lock` and later openers refuse while that process lives.
 */
import { open, readFile, rm } from "node:fs/promises";
import { join, resolve } from "node:path";

export interface DataDirLock {
  /** Removes the lock file. Safe to call more than once. */
  release(): Promise<void>;
}

/** Lock files this process holds, so its own pid in a leftover file is told apart from a live lock. */
const held = new Set<string>();

export async function lockDataDir(dir: string): Promise<DataDirLock> {
  const path = resolve(join(dir, ".lock"));
  try {
    await createLockFile(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    const pid = Number.parseInt(await readFile(path, "utf8").catch(() => ""), 10);
    if (Number.isInteger(pid) && pid > 0 && (held.has(path) || (pid !== process.pid && isAlive(pid)))) {
      throw new Error(
        `data directory ${dir} is in use by process ${pid} (if no such process uses it, delete ${path})`,
      );
    }
    // The owner died without cleaning up (or its pid is now ours after a container restart).
    await rm(path, { force: true });
    await createLockFile(path);
  }
  held.add(path);
  let released: Promise<void> | undefined;
  return {
    release: () =>
      released ??= rm(path, { force: true }).finally(() => {
        held.delete(path);
      }),
  };
}

async function createLockFile(path: string): Promise<void> {
  const file = await open(path, "wx", 0o600);
  try {
    await file.writeFile(`${process.pid}\n`);
  } finally {
    await file.close();
  }
}

/** Whether process `pid` of this host is running (one of another user counts). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to another user.
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
