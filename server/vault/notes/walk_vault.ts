/** Listing a user's directory: what kind each file is, and a fast recursive walk. */
import { readdir, stat } from "node:fs/promises";
import { join, posix } from "node:path";
import { typeForExtension } from "./attachment_type.ts";
import { isAddressableName, MAX_PATH_CHARS } from "./safe_path.ts";

export type EntryKind = "folder" | "note" | "canvas" | "attachment" | "file";

export interface TreeEntry {
  path: string;
  kind: EntryKind;
  /** Bytes (files only). */
  size?: number;
  mtime: Date;
}

const TEXT_KINDS: Record<string, EntryKind> = { ".md": "note", ".canvas": "canvas" };

export function entryKind(path: string): EntryKind {
  const ext = posix.extname(path).toLowerCase();
  return TEXT_KINDS[ext] ?? (typeForExtension(path) ? "attachment" : "file");
}

function errno(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException)?.code;
}

/**
 * Recursive listing, one folder level at a time, then (with `stats`) one pool of stat calls.
 * Skipped: hidden names (`.trash`, temp files, `.obsidian`), symlinks (never followed, so no cycles
 * and no escapes), and names the API could not address (see `isAddressableName`), so everything
 * listed can be opened. Without `stats`, `mtime` is the epoch and `size` is absent.
 */
export async function walkVault(root: string, stats: boolean): Promise<TreeEntry[]> {
  const out: TreeEntry[] = [];
  let level = [""];
  while (level.length) {
    const next: string[] = [];
    const listed = await Promise.all(level.map(async (rel) => ({
      rel,
      dirents: await readdir(rel ? join(root, rel) : root, { withFileTypes: true }).catch((err) => {
        // A folder removed while walking is simply not there; the root itself must exist.
        if (rel && (errno(err) === "ENOENT" || errno(err) === "ENOTDIR")) return [];
        throw err;
      }),
    })));
    for (const { rel, dirents } of listed) {
      for (const d of dirents) {
        if (d.name.startsWith(".") || !isAddressableName(d.name)) continue;
        const p = rel ? `${rel}/${d.name}` : d.name;
        if (p.length > MAX_PATH_CHARS) continue;
        if (d.isDirectory()) {
          out.push({ path: p, kind: "folder", mtime: EPOCH });
          next.push(p);
        } else if (d.isFile()) {
          out.push({ path: p, kind: entryKind(p), mtime: EPOCH });
        }
      }
    }
    level = next;
  }
  if (!stats) return out;
  const gone = new Set<TreeEntry>();
  await mapLimit(out, 256, async (e) => {
    const st = await stat(join(root, e.path)).catch(() => undefined);
    if (!st) return void gone.add(e);
    e.mtime = st.mtime;
    if (e.kind !== "folder") e.size = st.size;
  });
  return gone.size ? out.filter((e) => !gone.has(e)) : out;
}

const EPOCH = new Date(0);

/** Runs `fn` over `items`, at most `limit` at a time. */
export async function mapLimit<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
