/**
 * Moving a file or a folder (with everything in it): the links in other notes that pointed into what
 * moved, and the moved notes' own relative links, are rewritten to follow it, and canvases' file
 * nodes too, so nothing that resolved before the move dangles after it.
 */
import { lstat, readFile, rename, stat } from "node:fs/promises";
import { atomicWrite } from "./atomic_write.ts";
import { contentVersion } from "./content_version.ts";
import { NoteError } from "./errors.ts";
import { rewriteCanvasLinks, rewriteLinks } from "./link_rewrite.ts";
import type { RenameResult } from "./note_types.ts";
import { PathSet } from "./resolve_link.ts";
import { resolveInside } from "./safe_path.ts";
import type { UserVaults } from "./user_vaults.ts";
import { entryKind } from "./walk_vault.ts";

/**
 * Moves a file or a folder (with everything in it) and rewrites the links in other notes that
 * pointed into it (and the moved notes' own relative links). `already_exists` if `to` is taken.
 */
export async function moveFiles(
  vaults: UserVaults,
  userId: string,
  from: string,
  to: string,
): Promise<RenameResult> {
  return await vaults.lock.run(userId, async () => {
    const src = await vaults.resolve(userId, from);
    const dst = await vaults.resolve(userId, to);
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

    const idx = await vaults.index(userId);
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

    await vaults.mkdirParent(dst.rel, dst.abs);
    await rename(src.abs, dst.abs);

    const after = new PathSet([...before].map((p) => moves.get(p) ?? p));
    const texts = new Map<string, string>();
    for (const [oldPath, newPath] of moves) {
      const bytes = await readFile(await resolveInside(await vaults.userRoot(userId), newPath));
      const text = entryKind(newPath) === "note" ? new TextDecoder().decode(bytes) : undefined;
      idx.delete(oldPath);
      idx.set(newPath, text);
      if (text !== undefined) texts.set(newPath, text);
      // So the watcher takes the moved files for what they are: this store's own doing.
      vaults.remember(userId, newPath, contentVersion(bytes));
      vaults.remember(userId, oldPath, null);
    }

    const rewritten: string[] = [];
    const ctx = { moves, before, after };
    const notes = new Map<string, string>(); // new path -> old path
    for (const l of linkers) notes.set(moves.get(l) ?? l, l);
    for (const [oldPath, newPath] of moves) if (entryKind(newPath) === "note") notes.set(newPath, oldPath);
    for (const [newPath, oldPath] of notes) {
      const abs = await resolveInside(await vaults.userRoot(userId), newPath);
      const text = texts.get(newPath) ?? new TextDecoder().decode(await readFile(abs));
      const out = rewriteLinks(text, oldPath, newPath, ctx);
      if (out === undefined) continue;
      await atomicWrite(abs, out, { mode: (await stat(abs)).mode & 0o777 });
      vaults.remember(userId, newPath, contentVersion(out));
      idx.set(newPath, out);
      rewritten.push(newPath);
    }
    // Canvases reference files by path in their file nodes; there are few, so each is checked.
    for (const path of idx.files) {
      if (entryKind(path) !== "canvas") continue;
      const abs = await resolveInside(await vaults.userRoot(userId), path);
      const text = await readFile(abs, "utf8").catch(() => undefined);
      const out = text === undefined ? undefined : rewriteCanvasLinks(text, moves);
      if (out === undefined) continue;
      await atomicWrite(abs, out, { mode: (await stat(abs)).mode & 0o777 });
      vaults.remember(userId, path, contentVersion(out));
      rewritten.push(path);
      const oldPath = [...moves].find(([, n]) => n === path)?.[0];
      notes.set(path, oldPath ?? path);
    }
    if (isDir) {
      vaults.emit({ userId, kind: "renamed", path: dst.rel, from: src.rel, folder: true, source: "store" });
    }
    for (const [oldPath, newPath] of moves) {
      vaults.emit({ userId, kind: "renamed", path: newPath, from: oldPath, source: "store" });
    }
    for (const p of rewritten) {
      if (!moves.has(notes.get(p)!)) vaults.emit({ userId, kind: "changed", path: p, source: "store" });
    }
    return {
      from: src.rel,
      to: dst.rel,
      moved: [...moves].map(([f, t]) => ({ from: f, to: t })),
      rewritten: rewritten.sort(),
    };
  });
}
