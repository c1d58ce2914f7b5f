/**
 * What an import takes from an archive or a folder, decided before anything is read or written:
 * each entry goes into the vault at its path, goes aside (Obsidian's `.obsidian/` settings, kept
 * below `.obsidian/` in the user's folder: never listed, indexed or served, and exported again), or
 * is refused with a reason the report shows. Nothing else is dropped. The same rules run in the CLI
 * (so it does not upload what the server would refuse) and in the server.
 */
import { posix } from "node:path";
import { EntryTooLargeError } from "./zip.ts";
import {
  entryKind,
  MAX_ATTACHMENT_BYTES,
  MAX_NOTE_BYTES,
  normalizeNotePath,
  NoteError,
  OBSIDIAN_DIR,
} from "../notes/mod.ts";

/** One file or folder of what is imported, as the source names it. */
export interface SourceEntry {
  /** "/"-separated, as stored in the archive or relative to the folder. */
  path: string;
  type: "file" | "dir" | "symlink" | "other";
  size: number;
  mtime: Date;
  read(limit: number): Promise<Uint8Array>;
}

export interface Refusal {
  path: string;
  reason: string;
}

export interface PlannedFile {
  entry: SourceEntry;
  /** Where it goes: a vault path (below `.obsidian/` when `aside`). */
  path: string;
  aside: boolean;
  /** Bytes it may have at most. */
  limit: number;
}

export interface ImportPlan {
  files: PlannedFile[];
  refused: Refusal[];
  /** A folder every entry was in (a zipped vault folder), left out of the paths. */
  stripped?: string;
}

/** Files that operating systems leave in archives: refused by name, with this reason. */
const SYSTEM = /(^|\/)(__MACOSX\/|\.DS_Store$|Thumbs\.db$|desktop\.ini$)/i;

/** How many bytes a file of this path may have. */
export function sizeLimit(path: string, aside: boolean): number {
  const kind = entryKind(path);
  return !aside && (kind === "note" || kind === "canvas") ? MAX_NOTE_BYTES : MAX_ATTACHMENT_BYTES;
}

/** Whether a name as written climbs out of where it is unpacked (zip-slip) or starts at a root. */
function escapes(raw: string): boolean {
  const parts = raw.replace(/\\/g, "/").split("/");
  return /^([a-z]:[\\/]|\/|\\)/i.test(raw) || parts.includes("..");
}

export function planImport(entries: readonly SourceEntry[]): ImportPlan {
  const refused: Refusal[] = [];
  const files: PlannedFile[] = [];
  const stripped = commonVaultFolder(entries);
  const seen = new Set<string>();
  /** Hidden folders other than .obsidian are listed once, with how many files they held. */
  const hidden = new Map<string, number>();
  for (const entry of entries) {
    let raw = entry.path;
    if (stripped) raw = raw.slice(stripped.length + 1);
    if (entry.type === "dir" || raw === "" || raw.endsWith("/")) continue;
    if (escapes(raw)) {
      refused.push({ path: entry.path, reason: "outside the vault (a path with .. or from a root)" });
      continue;
    }
    if (SYSTEM.test(raw)) {
      refused.push({ path: raw, reason: "operating system metadata" });
      continue;
    }
    if (entry.type === "symlink") {
      refused.push({ path: raw, reason: "a symbolic link (not followed)" });
      continue;
    }
    if (entry.type !== "file") {
      refused.push({ path: raw, reason: "not a regular file" });
      continue;
    }
    const [top, ...rest] = raw.split("/");
    const aside = top === OBSIDIAN_DIR && rest.length > 0;
    const inner = aside ? rest.join("/") : raw;
    const hiddenAt = raw.split("/").findIndex((part, i) => part.startsWith(".") && !(aside && i === 0));
    if (hiddenAt !== -1) {
      const parts = raw.split("/");
      if (hiddenAt < parts.length - 1) {
        const folder = parts.slice(0, hiddenAt + 1).join("/") + "/";
        hidden.set(folder, (hidden.get(folder) ?? 0) + 1);
      } else refused.push({ path: raw, reason: "a hidden file (its name starts with .)" });
      continue;
    }
    let path: string;
    try {
      path = normalizeNotePath(inner);
    } catch (err) {
      if (!(err instanceof NoteError)) throw err;
      refused.push({ path: raw, reason: err.message });
      continue;
    }
    const key = `${aside ? OBSIDIAN_DIR + "/" : ""}${path}`.toLowerCase();
    if (seen.has(key)) {
      refused.push({ path: raw, reason: "another file of the import has the same path (letter case aside)" });
      continue;
    }
    seen.add(key);
    const limit = sizeLimit(path, aside);
    if (entry.size > limit) {
      refused.push({ path: raw, reason: `too large: ${entry.size} bytes (at most ${limit})` });
      continue;
    }
    files.push({ entry, path, aside, limit });
  }
  for (const [folder, n] of hidden) {
    const what = folder === ".trash/" ? "Obsidian's trash" : "a hidden folder";
    refused.push({ path: folder, reason: `${what}, not imported (${n} file${n === 1 ? "" : "s"})` });
  }
  return { files, refused, ...(stripped ? { stripped } : {}) };
}

/**
 * A zipped vault folder ("My Vault/Note.md", "My Vault/.obsidian/app.json"): every entry is in one
 * folder that holds `.obsidian/`. That folder is the vault, not part of the notes' paths.
 */
function commonVaultFolder(entries: readonly SourceEntry[]): string | undefined {
  let top: string | undefined;
  let hasSettings = false;
  for (const e of entries) {
    const [first, second] = e.path.split("/");
    if (second === undefined) return undefined; // a file at the top
    if (top === undefined) top = first;
    else if (top !== first) return undefined;
    if (second === OBSIDIAN_DIR) hasSettings = true;
  }
  return hasSettings && top && top !== OBSIDIAN_DIR ? top : undefined;
}

/** A planned file's bytes, or its refusal when they turn out larger than its limit. */
export async function readPlanned(f: PlannedFile): Promise<{ bytes: Uint8Array } | { refused: Refusal }> {
  try {
    return { bytes: await f.entry.read(f.limit) };
  } catch (err) {
    if (!(err instanceof EntryTooLargeError)) throw err;
    return { refused: { path: f.entry.path, reason: `too large (more than ${f.limit} bytes)` } };
  }
}

/** The name of a planned file as it is stored in the user's folder. */
export function storedPath(f: { path: string; aside: boolean }): string {
  return f.aside ? posix.join(OBSIDIAN_DIR, f.path) : f.path;
}
