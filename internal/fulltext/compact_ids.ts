/**
 * String ids by number, kept as bytes: an id of a fixed shape (a prefix and 2 × `bytes` lowercase hex
 * digits, memsvc's `m_` + 24) is `bytes` bytes in one Uint8Array, any other string (an imported id)
 * as it is. 100,000 JavaScriptCore strings of 26 characters cost about 6 MB plus a pointer each in
 * their array; here they are 1.3 MB, and a string is made only for the ids a caller asks for (the
 * few a search returns). It is also the `IdKeys` of an `IdTable` over the same numbers: lookups
 * compare bytes, and a resize hashes bytes, without making strings.
 *
 * @example
 * const ids = new CompactIds("m_", 12);
 * const table = new IdTable(ids);
 * ids.set(0, "m_0123456789abcdef01234567"), table.set("m_0123456789abcdef01234567", 0);
 * table.get("m_0123456789abcdef01234567"); // 0
 * ids.keyOf(0); // "m_0123456789abcdef01234567", a new string
 */
import { Buffer } from "node:buffer";
import { hashString, type IdKeys } from "./id_table.ts";

const NONE = 0;
const BYTES = 1;
const OTHER = 2;

export class CompactIds implements IdKeys {
  #kind = new Uint8Array(16);
  #bytes: Uint8Array;
  /** Ids not of the shape, by number. */
  readonly #others = new Map<number, string>();
  /** The key last given to `hash`, as bytes when it has the shape (`#probeBytes`). */
  readonly #probe: Uint8Array;
  #probeBytes = false;
  readonly #length: number;
  /** #bytes as a Buffer: its native hex encoding makes an id's string (2.4 µs a string from codes). */
  #hex: Buffer;

  constructor(readonly prefix: string, readonly bytes: number) {
    this.#length = prefix.length + 2 * bytes;
    this.#bytes = new Uint8Array(16 * bytes);
    this.#hex = Buffer.from(this.#bytes.buffer);
    this.#probe = new Uint8Array(bytes);
  }

  /** Ids of a shape other than the compact one (imported ones, say). */
  get others(): number {
    return this.#others.size;
  }

  has(n: number): boolean {
    return n < this.#kind.length && this.#kind[n] !== NONE;
  }

  /** The id numbered `n`, made as a string now; undefined when none. */
  keyOf(n: number): string | undefined {
    const kind = n < this.#kind.length ? this.#kind[n] : NONE;
    if (kind === BYTES) return this.prefix + this.#hex.toString("hex", n * this.bytes, (n + 1) * this.bytes);
    return kind === OTHER ? this.#others.get(n) : undefined;
  }

  /** Numbers `id` as `n` (replacing what `n` was). */
  set(n: number, id: string) {
    this.#room(n + 1);
    if (this.#kind[n] === OTHER) this.#others.delete(n);
    if (parseInto(id, this.prefix, this.#length, this.#bytes, n * this.bytes)) {
      this.#kind[n] = BYTES;
    } else {
      this.#kind[n] = OTHER;
      this.#others.set(n, id);
    }
  }

  /** Numbers as `n` the compact id whose bytes are at `from[at]` (a snapshot's, say). */
  setBytes(n: number, from: Uint8Array, at: number) {
    this.#room(n + 1);
    if (this.#kind[n] === OTHER) this.#others.delete(n);
    this.#bytes.set(from.subarray(at, at + this.bytes), n * this.bytes);
    this.#kind[n] = BYTES;
  }

  /** Numbers `first`, `first` + 1, … the compact ids whose bytes follow each other in `from`. */
  setBytesRange(first: number, from: Uint8Array) {
    const count = from.length / this.bytes;
    this.#room(first + count);
    for (let n = first; n < first + count; n++) {
      if (this.#kind[n] === OTHER) this.#others.delete(n);
    }
    this.#bytes.set(from, first * this.bytes);
    this.#kind.fill(BYTES, first, first + count);
  }

  /** Copies `n`'s bytes to `to[at]` when its id has the compact shape; false when it has not. */
  copyBytes(n: number, to: Uint8Array, at: number): boolean {
    if (n >= this.#kind.length || this.#kind[n] !== BYTES) return false;
    const from = n * this.bytes;
    to.set(this.#bytes.subarray(from, from + this.bytes), at);
    return true;
  }

  delete(n: number) {
    if (n >= this.#kind.length) return;
    if (this.#kind[n] === OTHER) this.#others.delete(n);
    this.#kind[n] = NONE;
  }

  hash(key: string): number {
    this.#probeBytes = parseInto(key, this.prefix, this.#length, this.#probe, 0);
    return this.#probeBytes ? hashBytes(this.#probe, 0, this.bytes) : hashString(key);
  }

  matches(n: number, key: string): boolean {
    const kind = this.#kind[n];
    if (kind === OTHER) return !this.#probeBytes && this.#others.get(n) === key;
    if (kind !== BYTES || !this.#probeBytes) return false;
    const bytes = this.#bytes, probe = this.#probe, at = n * this.bytes;
    for (let i = 0; i < probe.length; i++) if (bytes[at + i] !== probe[i]) return false;
    return true;
  }

  hashOf(n: number): number {
    const kind = this.#kind[n];
    if (kind === BYTES) return hashBytes(this.#bytes, n * this.bytes, this.bytes);
    return hashString(kind === OTHER ? this.#others.get(n)! : "");
  }

  #room(needed: number) {
    if (needed <= this.#kind.length) return;
    let n = this.#kind.length;
    while (n < needed) n *= 2;
    const kind = new Uint8Array(n);
    kind.set(this.#kind);
    const bytes = new Uint8Array(n * this.bytes);
    bytes.set(this.#bytes);
    this.#kind = kind;
    this.#bytes = bytes;
    this.#hex = Buffer.from(bytes.buffer);
  }
}

/** Lowercase hex digits' values by character code, -1 for any other (uppercase would not round-trip). */
const DIGIT = new Int8Array(128).fill(-1);
for (let d = 0; d < 16; d++) DIGIT["0123456789abcdef".charCodeAt(d)] = d;

/** Writes `id`'s bytes at `out[at]` when it has the shape; false (and `out` partly written) when not. */
function parseInto(id: string, prefix: string, length: number, out: Uint8Array, at: number): boolean {
  if (id.length !== length || !id.startsWith(prefix)) return false;
  for (let i = prefix.length, j = at; i < length; i += 2, j++) {
    const hi = DIGIT[id.charCodeAt(i) & 127]!, lo = DIGIT[id.charCodeAt(i + 1) & 127]!;
    if ((hi | lo) < 0 || (id.charCodeAt(i) | id.charCodeAt(i + 1)) > 127) return false;
    out[j] = hi << 4 | lo;
  }
  return true;
}

/** FNV-1a over the bytes, with the same final mix as `hashString`. */
function hashBytes(bytes: Uint8Array, at: number, n: number): number {
  let h = 0x811c9dc5;
  for (let i = at; i < at + n; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  return (h ^ (h >>> 13)) >>> 0;
}
