/**
 * Writes one user's vault as a zip that Obsidian opens as it is once unpacked: every note, canvas
 * and attachment at its path, and Obsidian's settings (`.obsidian/`) where an import kept them; no
 * trash. Entries carry the files' modification times, so an import of the export restores them.
 *
 * @example
 * const zip = zipStream();
 * void exportVault(store, userId, zip);
 * return new Response(zip.readable, { headers: { "content-type": "application/zip" } });
 */
import type { NoteStore } from "../notes/mod.ts";
import type { zipStream } from "./zip.ts";

export async function exportVault(
  store: NoteStore,
  userId: string,
  zip: ReturnType<typeof zipStream>,
  onProgress?: (progress: { done: number; total: number }) => void,
): Promise<{ files: number; bytes: number }> {
  try {
    const entries = await store.exportEntries(userId);
    let bytes = 0;
    let done = 0;
    onProgress?.({ done, total: entries.length });
    for (const e of entries) {
      const data = await e.read().catch((err) => {
        if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined; // deleted meanwhile
        throw err;
      });
      if (data) {
        await zip.add(e.path, data, e.mtime);
        bytes += data.length;
      }
      done++;
      onProgress?.({ done, total: entries.length });
    }
    await zip.close();
    return { files: done, bytes };
  } catch (err) {
    await zip.abort(err);
    throw err;
  }
}
