/**
 * A snapshot file's bytes for decodeFrame. On Bun, a frame checksummed with CRC-32 is mapped
 * (private, copy-on-write) instead of read: views into it (postings, term lists) then cost only the
 * pages a reader touches, counted as file-backed memory the kernel can drop and read back, where a
 * read keeps the whole file as anonymous memory for the life of the process (31 MB at 100,000
 * memsvc entries). The checksum is computed by streaming the file through a small buffer, so the
 * check leaves no page of the mapping resident. Elsewhere (Deno, the tests), and for frames of the
 * older "words" checksum, the file is read whole as before.
 *
 * A mapping stays valid only while nobody truncates or rewrites the file in place: the callers'
 * files are written to a temporary file and renamed over the old one (a new inode; the mapped one
 * lives until unmapped), never rewritten where they are.
 */
import { Buffer } from "node:buffer";
import { closeSync, fstatSync, openSync, readSync, statSync } from "node:fs";
import { open, readFile, rename, rm } from "node:fs/promises";
import { crc32 } from "node:zlib";
import { frameBodyStart } from "./frame.ts";

/** How much of the file the checksum reads at a time. */
const CHUNK = 1 << 20;
/**
 * How much a save writes at a time. On filesystems with large page-cache folios (ext4 from Linux
 * 6.16, xfs) a folio is as large as the write that made it, up to 2 MB, and a fault on a mapping
 * maps its whole folio: written whole, a 100k-entry memsvc snapshot had 22 MB of its mapping
 * resident after a hundred searches; written 64 KB at a time, 7 MB (smaller writes measured the same).
 */
const WRITE_CHUNK = 64 << 10;

type Mmap = (path: string, options: { shared: boolean }) => Uint8Array;
const bunMmap = (globalThis as { Bun?: { mmap?: Mmap } }).Bun?.mmap;

export interface FrameFile {
  bytes: Uint8Array;
  /** The bytes were mapped and their CRC-32 checked already: decodeFrame's `checked`. */
  checked: boolean;
  mapped: boolean;
}

/**
 * The file's bytes: mapped and checked when it begins with `crcMagic` (a frame with the "crc32"
 * checksum) and the runtime can map files, else read whole (the caller's decodeFrame checks them).
 * Throws when the file cannot be read, or a mapped frame's checksum does not match.
 */
export async function readFrameFile(
  file: string,
  crcMagic: string,
  options: { map?: boolean } = {},
): Promise<FrameFile> {
  const mapped = bunMmap && options.map !== false ? mapFrame(file, crcMagic, bunMmap) : undefined;
  return mapped ?? { bytes: await readFile(file), checked: false, mapped: false };
}

/**
 * The mapped frame, checked; undefined when the file is not a CRC-32 frame (an older format, or
 * damage: read whole, decodeFrame decides) or was replaced while being mapped. Synchronous: 31 MB
 * checked in 1 MB reads is a few milliseconds, and as 31 turns of the event loop it took several
 * times longer at start, where a restart's first search waits for it.
 */
function mapFrame(file: string, crcMagic: string, mmap: Mmap): FrameFile | undefined {
  const body = frameBodyStart(crcMagic);
  const fd = openSync(file, "r");
  try {
    const before = fstatSync(fd);
    const head = Buffer.alloc(body);
    if (readSync(fd, head, 0, body, 0) < body || head.subarray(0, crcMagic.length).toString() !== crcMagic) {
      return undefined;
    }
    const bytes = mmap(file, { shared: false });
    // The path named the same file before and after it was mapped (a save renames a new file in),
    // so the mapping is the file this descriptor reads.
    const after = statSync(file);
    if (after.ino !== before.ino || after.dev !== before.dev || bytes.length !== before.size) {
      return undefined;
    }
    let sum = 0;
    const chunk = Buffer.alloc(Math.min(CHUNK, Math.max(1, before.size - body)));
    for (let at = body; at < before.size;) {
      const n = readSync(fd, chunk, 0, Math.min(chunk.length, before.size - at), at);
      if (n === 0) throw new Error("snapshot is truncated");
      sum = crc32(chunk.subarray(0, n), sum);
      at += n;
    }
    const stored = head.readUInt32LE(body - 8), length = head.readUInt32LE(body - 4);
    if (stored !== sum || length !== before.size - body) throw new Error("snapshot checksum mismatch");
    return { bytes, checked: true, mapped: true };
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes a frame file for readFrameFile: to a temporary file named for the process, renamed over
 * `file` (so a crash mid-write, or two processes sharing a directory, leave a whole file), never
 * written in place, since a running process may have the old one mapped.
 */
export async function writeFrameFile(file: string, bytes: Uint8Array): Promise<void> {
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    const handle = await open(tmp, "w", 0o600);
    try {
      for (let at = 0; at < bytes.length;) {
        const { bytesWritten } = await handle.write(bytes, at, Math.min(WRITE_CHUNK, bytes.length - at), at);
        at += bytesWritten;
      }
    } finally {
      await handle.close();
    }
    await rename(tmp, file);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}
