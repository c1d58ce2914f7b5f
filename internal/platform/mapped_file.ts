/**
 * Files mapped into memory instead of read. A read copy of a large read-only file (a table, a
 * snapshot) is anonymous memory for the life of the process; a mapping's pages count in the resident
 * set only once touched, and the kernel can drop them again, clean, under pressure. A lookup table
 * read a few rows at a time keeps only those rows resident.
 *
 * Bun only (`Bun.mmap`, private and copy-on-write): elsewhere `mapFile` returns undefined and the
 * caller reads the file. A mapping stays valid while the file is replaced by a rename; a file must
 * never be truncated or rewritten in place while mapped (a read past its new end is SIGBUS), so
 * writers of mapped files write a temporary file and rename it.
 */
import { open } from "node:fs/promises";
import { crc32 } from "node:zlib";
import { bunGlobal } from "./runtime.ts";

/** Whether mapFile can map here (on Bun). */
export function canMapFiles(): boolean {
  return bunGlobal()?.mmap !== undefined;
}

/** The file's bytes as a private read-only mapping; undefined off Bun, or when it cannot be mapped. */
export function mapFile(path: string): Uint8Array | undefined {
  const mmap = bunGlobal()?.mmap;
  if (!mmap) return undefined;
  try {
    return mmap(path, { shared: false });
  } catch {
    return undefined;
  }
}

/**
 * zlib's CRC-32 of a file, read through a small buffer: checking a file before mapping it must not
 * touch the mapping's pages (they would all become resident).
 */
export async function fileCrc32(path: string, chunkBytes = 1 << 20): Promise<{ crc: number; bytes: number }> {
  const file = await open(path, "r");
  try {
    const buffer = new Uint8Array(chunkBytes);
    let crc = 0, bytes = 0;
    for (;;) {
      const { bytesRead } = await file.read(buffer, 0, chunkBytes, bytes);
      if (bytesRead === 0) return { crc, bytes };
      crc = crc32(buffer.subarray(0, bytesRead), crc);
      bytes += bytesRead;
    }
  } finally {
    await file.close();
  }
}
