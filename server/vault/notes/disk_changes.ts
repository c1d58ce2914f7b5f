/**
 * Edits made behind the store's back (the watcher reports them): a changed file is re-read and
 * re-indexed, a folder that appeared is walked, a folder that vanished takes its files with it. The
 * store's own writes, seen again by the watcher, are recognised and dropped.
 */
import { lstat, readFile } from "node:fs/promises";
import { join } from "node:path";
import { contentVersion } from "./content_version.ts";
import { type NoteChange, statSignature } from "./note_types.ts";
import { normalizeNotePath, resolveInside } from "./safe_path.ts";
import type { UserVaults } from "./user_vaults.ts";
import { entryKind, walkVault } from "./walk_vault.ts";

/**
 * Tells the store that `path` changed on disk behind its back (the watcher calls this). A file is
 * re-read and re-indexed; a folder that appeared is walked; a folder that vanished takes its files
 * with it. Returns the changes, leaving out echoes of this store's own writes and anything that is
 * not a vault path (hidden, temporary, outside the user's directory).
 */
export async function applyDiskChange(
  vaults: UserVaults,
  userId: string,
  path: string,
): Promise<NoteChange[]> {
  let rel: string;
  try {
    rel = normalizeNotePath(path);
  } catch {
    return [];
  }
  const root = await vaults.userRoot(userId);
  const mine = vaults.writtenStat(userId, rel);
  if (mine !== undefined) {
    // This store's own write, as it left it: nothing changed behind its back.
    const st = await lstat(join(root, rel)).catch(() => undefined);
    if (st && statSignature(st) === mine) return [];
  }
  return await vaults.lock.run(userId, async () => {
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
        const c = await fileChanged(vaults, userId, p, join(root, p));
        if (c) out.push(c);
      }
      return out;
    }
    if (st) {
      const c = await fileChanged(vaults, userId, rel, abs);
      return c ? [c] : [];
    }
    // Gone: a file, or a folder whose indexed files went with it.
    const idx = await vaults.indexIfBuilt(userId);
    const gone = idx ? [...idx.files].filter((p) => p === rel || p.startsWith(rel + "/")) : [rel];
    const out: NoteChange[] = [];
    for (const p of gone) {
      if (vaults.versionOf(userId, p) === null) continue;
      vaults.seen(userId, p, null);
      if (idx && !idx.files.has(p)) continue;
      idx?.delete(p);
      out.push(reported(vaults, { userId, kind: "deleted", path: p, source: "disk" }));
    }
    return out;
  });
}

async function fileChanged(
  vaults: UserVaults,
  userId: string,
  rel: string,
  abs: string,
): Promise<NoteChange | undefined> {
  const bytes = await readFile(abs).catch(() => undefined);
  if (!bytes) return undefined;
  const version = contentVersion(bytes);
  if (vaults.versionOf(userId, rel) === version) return undefined;
  const idx = await vaults.indexIfBuilt(userId);
  const existed = vaults.versionOf(userId, rel) ? true : idx ? idx.files.has(rel) : false;
  vaults.seen(userId, rel, version);
  idx?.set(rel, entryKind(rel) === "note" ? new TextDecoder().decode(bytes) : undefined);
  return reported(vaults, { userId, kind: existed ? "changed" : "created", path: rel, source: "disk" });
}

function reported(vaults: UserVaults, change: NoteChange): NoteChange {
  vaults.emit(change);
  return change;
}
