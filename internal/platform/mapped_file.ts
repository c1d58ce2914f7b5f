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
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { open, rename, rm } from "node:fs/promises";
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
 * zlib's CRC-32 and length of a whole file, read through a small buffer (fdCrc32Sync): checking a
 * file before mapping it must not touch the mapping's pages (they would all become resident).
 */
export function fileCrc32(path: string, chunkBytes = 1 << 20): { crc: number; bytes: number } {
  const fd = openSync(path, "r");
  try {
    const { size } = fstatSync(fd);
    return { crc: fdCrc32Sync(fd, 0, size, chunkBytes), bytes: size };
  } finally {
    closeSync(fd);
  }
}

/**
 * zlib's CRC-32 of the bytes [from, to) of an open file, synchronously. For a check on a start's
 * critical path: memsvc's keyword snapshot (31 MB) logged its load at 430–610 ms with awaited reads,
 * which took turns with the rest of the start, against a few milliseconds read in one go.
 */
export function fdCrc32Sync(fd: number, from: number, to: number, chunkBytes = 1 << 20): number {
  const buffer = new Uint8Array(Math.max(1, Math.min(chunkBytes, to - from)));
  let crc = 0;
  for (let at = from; at < to;) {
    const n = readSync(fd, buffer, 0, Math.min(buffer.length, to - at), at);
    if (n === 0) throw new Error("file is shorter than expected");
    crc = crc32(buffer.subarray(0, n), crc);
    at += n;
  }
  return crc;
}

/**
 * How much writeMappedFile writes at a time. On filesystems with large page-cache folios (ext4 from
 * Linux 6.16, xfs) a folio is as large as the write that made it, up to 2 MB, and a fault on a mapping
 * maps its whole folio: written whole, memsvc's 100k-entry keyword snapshot had 22 MB of its mapping
 * resident after 300 searches; written 64 KB at a time, 7 MB (4 and 16 KB measured the same, 1 MB as
 * bad as whole).
 */
const WRITE_CHUNK = 64 << 10;

/**
 * Writes a file that a process may map: to a temporary file named for the process, in 64 KB writes,
 * renamed over `path` (a mapped file is never rewritten in place; a crash mid-write, or two processes
 * sharing a directory, leave a whole file).
 */
export async function writeMappedFile(path: string, bytes: Uint8Array, mode = 0o600): Promise<void> {
  const tmp = `${path}.${process.pid}.tmp`;
  try {
    const handle = await open(tmp, "w", mode);
    try {
      for (let at = 0; at < bytes.length;) {
        const { bytesWritten } = await handle.write(bytes, at, Math.min(WRITE_CHUNK, bytes.length - at), at);
        at += bytesWritten;
      }
    } finally {
      await handle.close();
    }
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}
