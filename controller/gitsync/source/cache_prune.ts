/**
 * The source cache's housekeeping (seed section 8): bare clones under <cache>/git that no fetch or
 * checkout used for an hour are removed, hourly. A clone in use is never pruned from under it: every
 * fetch and checkout marks its clone as used first. Inside a clone nothing is pruned (it keeps every
 * object it fetched, which is what makes the next fetch incremental).
 */
import { readdir, rm, stat, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";

const MARKER = "gitsync-last-used";

/** Records that the clone at `gitdir` is in use now. */
export async function markUsed(gitdir: string, now = new Date()): Promise<void> {
  const marker = join(gitdir, MARKER);
  await utimes(marker, now, now).catch(async () => {
    await writeFile(marker, "");
    await utimes(marker, now, now);
  });
}

export interface PruneOptions {
  /** Unused longer than this is removed; default 1 hour. */
  maxIdleMs?: number;
  now?: Date;
}

/** Removes the clones unused for longer than maxIdleMs; returns their directory names. */
export async function pruneSourceCache(cacheRoot: string, o: PruneOptions = {}): Promise<string[]> {
  const maxIdleMs = o.maxIdleMs ?? 60 * 60_000;
  const now = (o.now ?? new Date()).getTime();
  const root = join(cacheRoot, "git");
  const removed: string[] = [];
  for (const name of await readdir(root).catch(() => [] as string[])) {
    const dir = join(root, name);
    // A clone from before markers existed (or one whose fetch failed) counts from its folder's time.
    const used = await stat(join(dir, MARKER)).catch(() => stat(dir)).catch(() => undefined);
    if (!used || now - used.mtimeMs <= maxIdleMs) continue;
    await rm(dir, { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}

/** Prunes every `everyMs` (default hourly) until `signal` aborts; failures are reported, not thrown. */
export function schedulePrune(
  cacheRoot: string,
  signal: AbortSignal,
  report: (removed: string[], err?: Error) => void,
  everyMs = 60 * 60_000,
): void {
  const timer = setInterval(() => {
    pruneSourceCache(cacheRoot).then((removed) => report(removed), (err: Error) => report([], err));
  }, everyMs);
  (timer as { unref?: () => void }).unref?.();
  signal.addEventListener("abort", () => clearInterval(timer), { once: true });
}
