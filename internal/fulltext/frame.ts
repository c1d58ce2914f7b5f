/**
 * A checksummed binary frame for index snapshots: a magic string, a 64-bit checksum of everything
 * after it, a JSON header and typed-array sections, each aligned to 8 bytes so a reader can view them in
 * place (no copy, no per-element parsing). A frame whose checksum, magic or lengths do not match
 * reads as an error: a snapshot is a cache, and a damaged one must be rebuilt, never half-used.
 */
import { crc32 } from "node:zlib";

export type Section = Int32Array | Uint32Array | Float32Array | Float64Array | Uint16Array | Uint8Array;
type SectionType =
  | Float64ArrayConstructor
  | Int32ArrayConstructor
  | Uint32ArrayConstructor
  | Float32ArrayConstructor
  | Uint16ArrayConstructor
  | Uint8ArrayConstructor;

/**
 * How the body is checksummed: "words", two multiplicative hashes in JavaScript (the first formats),
 * or "crc32", zlib's with the body's length (native: 5 ms instead of 30–50 for 40 MB, at every start).
 */
export type Checksum = "words" | "crc32";

const HASH_BYTES = 8;
const align = (n: number) => (n + 7) & ~7;

/** Where a frame of `magic` starts its checksummed body; the checksum is the 8 bytes before. */
export function frameBodyStart(magic: string): number {
  return align(new TextEncoder().encode(magic).length) + HASH_BYTES;
}

/** The frame's bytes: magic, checksum, header length, header, sections. */
export function encodeFrame(
  magic: string,
  header: unknown,
  sections: Section[],
  kind: Checksum = "words",
): Uint8Array {
  const magicBytes = new TextEncoder().encode(magic);
  const headerBytes = new TextEncoder().encode(
    JSON.stringify({ header, sections: sections.map((s) => s.byteLength) }),
  );
  const start = align(align(magicBytes.length) + HASH_BYTES + 4 + headerBytes.length);
  let size = start;
  for (const s of sections) size = align(size + s.byteLength);
  const out = new Uint8Array(size);
  out.set(magicBytes);
  // Checksum and body start 8-aligned, so the checksum reads the body as whole 32-bit words.
  const body = align(magicBytes.length) + HASH_BYTES;
  new DataView(out.buffer).setUint32(body, headerBytes.length, true);
  out.set(headerBytes, body + 4);
  let at = start;
  for (const s of sections) {
    out.set(new Uint8Array(s.buffer, s.byteOffset, s.byteLength), at);
    at = align(at + s.byteLength);
  }
  out.set(checksum(out, body, kind), body - HASH_BYTES);
  return out;
}

/**
 * Two multiplicative hashes over the 32-bit words from `from` (the frame is padded to 8 bytes), for
 * damage, not tampering: a fraction of SHA-256's time on a 35 MB snapshot, which a start waits for.
 */
function checksum(bytes: Uint8Array, from: number, kind: Checksum): Uint8Array {
  const out = new Uint8Array(HASH_BYTES);
  const view = new DataView(out.buffer);
  if (kind === "crc32") {
    view.setUint32(0, crc32(bytes.subarray(from)), true);
    view.setUint32(4, bytes.length - from, true);
    return out;
  }
  const start = bytes.byteOffset + from;
  const words = start % 4 === 0
    ? new Uint32Array(bytes.buffer, start, (bytes.length - from) >> 2)
    : new Uint32Array(bytes.slice(from, from + ((bytes.length - from) & ~3)).buffer);
  let a = 0x811c9dc5, b = 0x9e3779b9;
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    a = Math.imul(a ^ w, 0x01000193);
    b = Math.imul((b + w) ^ (b >>> 15), 0x2c1b3c6d);
  }
  view.setUint32(0, a, true);
  view.setUint32(4, b, true);
  return out;
}

export interface Frame {
  header: unknown;
  /** The next section as `Type`, in encoding order: a view into the frame's bytes when aligned. */
  next<T extends SectionType>(Type: T): InstanceType<T>;
}

export interface ReadOptions {
  /**
   * The bytes were checked already, by the checksum of a frame that holds them: this one's is not
   * computed again (a second pass over tens of MB at start).
   */
  checked?: boolean;
  /** The checksum the frame was written with (default "words"). */
  checksum?: Checksum;
}

/** Reads a frame; throws when it is not one of `magic`, is truncated or fails its checksum. */
export function decodeFrame(magic: string, bytes: Uint8Array, options: ReadOptions = {}): Frame {
  const magicBytes = new TextEncoder().encode(magic);
  const body = align(magicBytes.length) + HASH_BYTES;
  if (bytes.length < body + 4 || !magicBytes.every((b, i) => bytes[i] === b)) {
    throw new Error(`not a ${magic.trim()} snapshot`);
  }
  if ((bytes.length - body) % 4 !== 0) throw new Error("snapshot checksum mismatch");
  if (!options.checked) {
    const sum = checksum(bytes, body, options.checksum ?? "words");
    if (!sum.every((b, i) => bytes[body - HASH_BYTES + i] === b)) {
      throw new Error("snapshot checksum mismatch");
    }
  }
  const headerLength = new DataView(bytes.buffer, bytes.byteOffset).getUint32(body, true);
  const parsed = JSON.parse(new TextDecoder().decode(bytes.subarray(body + 4, body + 4 + headerLength))) as {
    header: unknown;
    sections: number[];
  };
  let at = align(body + 4 + headerLength);
  let i = 0;
  return {
    header: parsed.header,
    next<T extends SectionType>(Type: T): InstanceType<T> {
      const byteLength = parsed.sections[i++];
      if (byteLength === undefined || at + byteLength > bytes.length) {
        throw new Error("snapshot is truncated");
      }
      const start = at;
      at = align(at + byteLength);
      const n = byteLength / Type.BYTES_PER_ELEMENT;
      if ((bytes.byteOffset + start) % Type.BYTES_PER_ELEMENT === 0) {
        return new Type(bytes.buffer as ArrayBuffer, bytes.byteOffset + start, n) as InstanceType<T>;
      }
      // The caller's bytes are not aligned for the type (a slice of a pooled buffer): copy this one.
      return new Type(bytes.slice(start, start + byteLength).buffer) as InstanceType<T>;
    },
  };
}
