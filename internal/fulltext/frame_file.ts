/**
 * A snapshot file's bytes for decodeFrame. Where the runtime maps files (Bun: internal/platform's
 * mapFile), a frame checksummed with CRC-32 is mapped instead of read: views into it (postings, term
 * lists) then cost only the pages a reader touches, as file-backed memory the kernel can drop and
 * read back, where a read keeps the whole file as anonymous memory for the life of the process (31
 * MB at 100,000 memsvc entries). The checksum is computed by reading the file through a small buffer,
 * so the check leaves no page of the mapping resident. Elsewhere (Deno, the tests), and for frames of
 * the older "words" checksum, the file is read whole as before.
 *
 * A mapping stays valid only while nobody truncates or rewrites the file in place: write such files
 * with internal/platform's writeMappedFile (a temporary file renamed over the old one).
 */
import { Buffer } from "node:buffer";
import { closeSync, fstatSync, openSync, readSync, statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { canMapFiles, fdCrc32Sync, mapFile } from "../platform/mod.ts";
import { frameBodyStart } from "./frame.ts";

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
  const mapped = canMapFiles() && options.map !== false ? mapFrame(file, crcMagic) : undefined;
  return mapped ?? { bytes: await readFile(file), checked: false, mapped: false };
}

/**
 * The mapped frame, checked; undefined when the file is not a CRC-32 frame (an older format, or
 * damage: read whole, decodeFrame decides), cannot be mapped, or was replaced while being mapped.
 * Synchronous (fdCrc32Sync): a few milliseconds for 31 MB.
 */
function mapFrame(file: string, crcMagic: string): FrameFile | undefined {
  const body = frameBodyStart(crcMagic);
  const fd = openSync(file, "r");
  try {
    const before = fstatSync(fd);
    const head = Buffer.alloc(body);
    if (readSync(fd, head, 0, body, 0) < body || head.subarray(0, crcMagic.length).toString() !== crcMagic) {
      return undefined;
    }
    const bytes = mapFile(file);
    // The path named the same file before and after it was mapped (a save renames a new file in),
    // so the mapping is the file this descriptor reads.
    const after = statSync(file);
    if (!bytes || after.ino !== before.ino || after.dev !== before.dev || bytes.length !== before.size) {
      return undefined;
    }
    const sum = fdCrc32Sync(fd, body, before.size);
    const stored = head.readUInt32LE(body - 8), length = head.readUInt32LE(body - 4);
    if (stored !== sum || length !== before.size - body) throw new Error("snapshot checksum mismatch");
    return { bytes, checked: true, mapped: true };
  } finally {
    closeSync(fd);
  }
}
