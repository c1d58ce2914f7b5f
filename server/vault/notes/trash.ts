/**
 * The trash: a deleted file moves to `.trash/<id>/<original path>` inside the user's directory, where
 * it can be listed, restored to where it was, or purged. The id is the deletion time and a random
 * suffix, so the trash lists newest first without any other record.
 */
import { lstat, mkdir, readdir, readFile, rename, rm, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import { contentVersion } from "./content_version.ts";
import { NoteError } from "./errors.ts";
import { errno, type NoteMeta, TRASH_DIR, type TrashEntry } from "./note_types.ts";
import { normalizeNotePath, resolveInside } from "./safe_path.ts";
import type { UserVaults } from "./user_vaults.ts";
import { entryKind, walkVault } from "./walk_vault.ts";

const TRASH_ID = /^\d{8}T\d{9}Z-[0-9a-f]{8}$/;

/** Moves a file to the trash; returns the trash entry to restore it with. */
export async function trashFile(vaults: UserVaults, userId: string, path: string): Promise<TrashEntry> {
  return await vaults.lock.run(userId, async () => {
    const { rel, abs } = await vaults.resolve(userId, path);
    const st = await lstat(abs).catch(() => undefined);
    if (!st) throw new NoteError("not_found", `${rel} not found`);
    if (st.isDirectory()) throw new NoteError("not_a_note", `${rel} is a folder; use deleteFolder`);
    const deletedAt = new Date();
    const id = `${deletedAt.toISOString().replace(/[-:.]/g, "")}-${crypto.randomUUID().slice(0, 8)}`;
    const root = await vaults.userRoot(userId);
    const dest = join(root, TRASH_DIR, id, rel);
    await mkdir(dirname(dest), { recursive: true });
    await rename(abs, dest);
    vaults.remember(userId, rel, null);
    (await vaults.indexIfBuilt(userId))?.delete(rel);
    vaults.emit({ userId, kind: "deleted", path: rel, source: "store" });
    return { id, path: rel, deletedAt, size: st.size };
  });
}

/** What is in the trash, newest first. */
export async function listTrash(vaults: UserVaults, userId: string): Promise<TrashEntry[]> {
  const trash = join(await vaults.userRoot(userId), TRASH_DIR);
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
export async function restoreFile(vaults: UserVaults, userId: string, id: string): Promise<NoteMeta> {
  if (!TRASH_ID.test(String(id))) throw new NoteError("not_found", "no such trash entry");
  return await vaults.lock.run(userId, async () => {
    const root = await vaults.userRoot(userId);
    const dir = join(root, TRASH_DIR, id);
    const files = await walkFiles(dir);
    if (files.length !== 1) throw new NoteError("not_found", "no such trash entry");
    const rel = normalizeNotePath(files[0]!.path);
    const abs = await resolveInside(root, rel);
    if (await lstat(abs).catch(() => undefined)) {
      throw new NoteError("already_exists", `${rel} already exists`);
    }
    await vaults.mkdirParent(rel, abs);
    await rename(join(dir, rel), abs);
    await rm(dir, { recursive: true, force: true });
    const bytes = await readFile(abs);
    const version = contentVersion(bytes);
    vaults.remember(userId, rel, version);
    const idx = await vaults.indexIfBuilt(userId);
    idx?.set(rel, entryKind(rel) === "note" ? new TextDecoder().decode(bytes) : undefined);
    vaults.emit({ userId, kind: "created", path: rel, source: "store" });
    return { path: rel, version, size: bytes.length, mtime: (await stat(abs)).mtime };
  });
}

/** Deletes one trash entry for good, or all of them. */
export async function purgeTrash(vaults: UserVaults, userId: string, id?: string): Promise<void> {
  const trash = join(await vaults.userRoot(userId), TRASH_DIR);
  if (id === undefined) return await rm(trash, { recursive: true, force: true });
  if (!TRASH_ID.test(String(id))) throw new NoteError("not_found", "no such trash entry");
  await rm(join(trash, id), { recursive: true, force: true });
}

async function walkFiles(dir: string): Promise<{ path: string; size: number }[]> {
  const out = await walkVault(dir, true).catch((err) => {
    if (errno(err) !== "ENOENT") throw err;
    return [];
  });
  return out.filter((e) => e.kind !== "folder").map((e) => ({ path: e.path, size: e.size ?? 0 }));
}
