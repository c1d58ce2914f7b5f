/** Where an import reads from: a folder on disk (an Obsidian vault as it is) or a zip archive. */
import { lstat, open, readdir } from "node:fs/promises";
import { join } from "node:path";
import type { SourceEntry } from "./import_plan.ts";
import { EntryTooLargeError, openZipFile } from "./zip.ts";

export interface ImportSource {
  entries: SourceEntry[];
  close(): Promise<void>;
}

/** Every entry below `dir`, hidden ones included (the plan decides); symlinks are reported, never followed. */
export async function folderSource(dir: string): Promise<ImportSource> {
  const entries: SourceEntry[] = [];
  let level = [""];
  while (level.length) {
    const next: string[] = [];
    for (const rel of level) {
      for (const d of await readdir(join(dir, rel), { withFileTypes: true })) {
        const path = rel ? `${rel}/${d.name}` : d.name;
        const abs = join(dir, path);
        const st = await lstat(abs);
        const type = d.isSymbolicLink() ? "symlink" : d.isDirectory() ? "dir" : d.isFile() ? "file" : "other";
        if (type === "dir") next.push(path);
        entries.push({
          path,
          type,
          size: st.size,
          mtime: st.mtime,
          read: (limit) => readLimited(abs, limit),
        });
      }
    }
    level = next;
  }
  return { entries, close: async () => {} };
}

/** The entries of a zip file, read through its central directory. */
export async function zipSource(path: string): Promise<ImportSource> {
  const zip = await openZipFile(path);
  return {
    entries: zip.entries.map((e) => ({
      path: e.path,
      type: e.directory ? "dir" : e.symlink ? "symlink" : "file",
      size: e.size,
      mtime: e.mtime,
      read: e.read,
    })),
    close: zip.close,
  };
}

async function readLimited(path: string, limit: number): Promise<Uint8Array> {
  const h = await open(path, "r");
  try {
    const size = (await h.stat()).size;
    if (size > limit) throw new EntryTooLargeError(limit);
    const buf = new Uint8Array(size);
    let at = 0;
    while (at < size) {
      const { bytesRead } = await h.read(buf, at, size - at, at);
      if (bytesRead === 0) break;
      at += bytesRead;
    }
    return buf.subarray(0, at);
  } finally {
    await h.close();
  }
}
