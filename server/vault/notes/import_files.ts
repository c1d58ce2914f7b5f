/**
 * A whole vault in and out at once: an import writes many files, each checked as the single-file
 * routes check it and synced to disk together at the end; an export lists every file with a way to
 * read it, Obsidian's settings (kept aside below `.obsidian/`) included.
 */
import { lstat, readFile, utimes } from "node:fs/promises";
import { join } from "node:path";
import { checkAttachment, MAX_ATTACHMENT_BYTES, typeForExtension } from "./attachment_type.ts";
import { atomicWrite, syncPaths } from "./atomic_write.ts";
import { parseCanvas } from "./canvas.ts";
import { contentVersion } from "./content_version.ts";
import { NoteError } from "./errors.ts";
import { errno, type ImportFile, type ImportOutcome, MAX_NOTE_BYTES, OBSIDIAN_DIR } from "./note_types.ts";
import { normalizeNotePath, resolveInside } from "./safe_path.ts";
import type { UserVaults } from "./user_vaults.ts";
import { entryKind, mapLimit, walkVault } from "./walk_vault.ts";

/**
 * Writes many files at once (an import): each atomically, but synced to disk together at the end.
 * New files are reported to nobody (the importer indexes them in bulk, and thousands of events
 * would flood the live channel); replaced ones are reported as changed, so an editor that has one
 * open reloads it. A file whose path already holds the
 * same bytes is left alone (`unchanged`: a re-run changes nothing); other bytes there are refused
 * unless `overwrite`. Each file is checked as the single-file routes check it: notes are UTF-8 of
 * at most 1 MiB, canvases valid JSON Canvas, attachments what their extension says, anything else
 * at most 20 MiB. `dryRun` checks and compares without writing.
 */
export async function importFiles(
  vaults: UserVaults,
  userId: string,
  files: readonly ImportFile[],
  opts: { overwrite?: boolean; dryRun?: boolean } = {},
): Promise<ImportOutcome[]> {
  const root = await vaults.userRoot(userId);
  return await vaults.lock.run(userId, async () => {
    const out: ImportOutcome[] = new Array(files.length);
    const written: string[] = [];
    await mapLimit([...files.keys()], 16, async (i) => {
      const f = files[i]!;
      try {
        out[i] = await importOne(vaults, userId, root, f, opts, written);
      } catch (err) {
        if (!(err instanceof NoteError)) throw err;
        out[i] = {
          path: f.path,
          ...(f.aside ? { aside: true } : {}),
          status: "refused",
          reason: err.message,
        };
      }
    });
    if (written.length) await syncPaths(written);
    for (const o of out) {
      if (o.status !== "refused" && o.status !== "unchanged" && !o.aside) vaults.touchTree(userId, o.path);
    }
    for (const o of out) {
      if (o.status === "updated" && !o.aside) {
        vaults.emit({ userId, kind: "changed", path: o.path, source: "store" });
      }
    }
    return out;
  });
}

async function importOne(
  vaults: UserVaults,
  userId: string,
  root: string,
  f: ImportFile,
  opts: { overwrite?: boolean; dryRun?: boolean },
  written: string[],
): Promise<ImportOutcome> {
  const rel = normalizeNotePath(f.path);
  const abs = await resolveInside(root, f.aside ? `${OBSIDIAN_DIR}/${rel}` : rel);
  const kind = entryKind(rel);
  let text: string | undefined;
  if (f.aside || kind === "file") {
    if (f.bytes.length > MAX_ATTACHMENT_BYTES) {
      throw new NoteError("too_large", `files are limited to ${MAX_ATTACHMENT_BYTES} bytes`);
    }
  } else if (kind === "attachment") {
    checkAttachment(rel, typeForExtension(rel)!, f.bytes);
  } else {
    if (f.bytes.length > MAX_NOTE_BYTES) {
      throw new NoteError("too_large", `notes and canvases are limited to ${MAX_NOTE_BYTES} bytes`);
    }
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(f.bytes);
    } catch {
      throw new NoteError("not_a_note", "not UTF-8 text");
    }
    if (kind === "canvas") parseCanvas(text);
  }
  const version = contentVersion(f.bytes);
  const st = await lstat(abs).catch(() => undefined);
  if (st?.isDirectory()) throw new NoteError("already_exists", `a folder is at ${rel}`);
  if (st && !st.isFile()) throw new NoteError("already_exists", `something other than a file is at ${rel}`);
  const base = { path: rel, ...(f.aside ? { aside: true } : {}), kind, version, size: f.bytes.length };
  const withText = kind === "note" && !f.aside ? { text } : {};
  if (st) {
    const same = st.size === f.bytes.length && contentVersion(await readFile(abs)) === version;
    if (same) return { ...base, ...withText, status: "unchanged", mtime: st.mtime };
    if (!opts.overwrite) {
      throw new NoteError("already_exists", `${rel} exists with other content (overwrite replaces it)`);
    }
  }
  const mtime = f.mtime ?? new Date();
  const status = st ? "updated" as const : "created" as const;
  if (opts.dryRun) return { ...base, ...withText, status, mtime };
  await vaults.mkdirParent(rel, abs);
  try {
    await atomicWrite(abs, f.bytes, {
      exclusive: !st,
      sync: false,
      mode: st ? st.mode & 0o777 : undefined,
    });
  } catch (err) {
    if (errno(err) === "EEXIST") throw new NoteError("already_exists", `${rel} already exists`);
    throw err;
  }
  if (f.mtime) await utimes(abs, f.mtime, f.mtime);
  written.push(abs);
  if (!f.aside) {
    vaults.remember(userId, rel, version);
    (await vaults.indexIfBuilt(userId))?.set(rel, text !== undefined && kind === "note" ? text : undefined);
  }
  return { ...base, ...withText, status, mtime };
}

/**
 * Every file of the user's vault as an export takes it: the files the tree lists, and Obsidian's
 * settings kept aside below `.obsidian/`, each with a way to read it. Not the trash.
 */
export async function exportEntries(
  vaults: UserVaults,
  userId: string,
): Promise<{ path: string; size: number; mtime: Date; read(): Promise<Uint8Array> }[]> {
  const root = await vaults.userRoot(userId);
  const settings = join(root, OBSIDIAN_DIR);
  const aside = (await lstat(settings).catch(() => undefined))?.isDirectory()
    ? (await walkVault(settings, true)).map((e) => ({ ...e, path: `${OBSIDIAN_DIR}/${e.path}` }))
    : [];
  const all = [...aside, ...await walkVault(root, true)].filter((e) => e.kind !== "folder");
  return all.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)).map((e) => ({
    path: e.path,
    size: e.size ?? 0,
    mtime: e.mtime,
    read: () => readFile(join(root, e.path)),
  }));
}
