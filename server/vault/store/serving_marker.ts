/**
 * Which `vault serve` processes use a notes folder. Each writes `<VAULT_DATA_DIR>/.serving/<host>.<pid>`
 * while it runs (replicas sharing the folder each have their own), so the offline commands (`vault
 * import` and `vault export` without a server) can refuse to write behind a running server's back,
 * whichever database it uses. The embedded database's own lock (internal/db/data_dir_lock.ts) guards
 * the database; this guards the files.
 */
import { hostname } from "node:os";
import { mkdir, readdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { isProcessAlive as isAlive } from "../../../internal/db/mod.ts";

const DIR = ".serving";

/** Marks `dataDir` as served by this process until `release`. */
export async function markServing(dataDir: string): Promise<{ release(): Promise<void> }> {
  const dir = join(dataDir, DIR);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, `${hostname()}.${process.pid}`);
  await writeFile(file, `${new Date().toISOString()}\n`, { mode: 0o600 });
  let released: Promise<void> | undefined;
  return { release: () => released ??= rm(file, { force: true }) };
}

/**
 * The servers that may be using `dataDir`: "process N" on this host (alive), "process N on host H"
 * for other hosts (which cannot be checked from here). Markers of processes of this host that are
 * gone (a kill -9) are removed.
 */
export async function serversUsing(dataDir: string): Promise<string[]> {
  const dir = join(dataDir, DIR);
  const names = await readdir(dir).catch(() => [] as string[]);
  const here = hostname();
  const out: string[] = [];
  for (const name of names) {
    const dot = name.lastIndexOf(".");
    const host = name.slice(0, dot);
    const pid = Number(name.slice(dot + 1));
    if (!Number.isInteger(pid) || pid <= 0) continue;
    if (host !== here) {
      out.push(`process ${pid} on host ${host}`);
      continue;
    }
    if (pid !== process.pid && isAlive(pid)) out.push(`process ${pid}`);
    else if (pid !== process.pid) await rm(join(dir, name), { force: true });
  }
  return out;
}

/**
 * A name for a temporary file of this process (`<host>.<pid>.<random><suffix>`), which
 * `removeLeftovers` can tell from another live process's.
 */
export function processTempName(suffix: string): string {
  return `${hostname()}.${process.pid}.${crypto.randomUUID()}${suffix}`;
}

/** Removes the files `processTempName` named in `dir` for processes of this host that are gone (a crash). */
export async function removeLeftovers(dir: string): Promise<number> {
  const here = hostname();
  let removed = 0;
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const m = /^(.+)\.(\d+)\.[0-9a-f-]{36}/.exec(name);
    if (!m || m[1] !== here || Number(m[2]) === process.pid || isAlive(Number(m[2]))) continue;
    await rm(join(dir, name), { force: true });
    removed++;
  }
  return removed;
}
