/**
 * Unsigned LEB128 varints, for the per-document term lists and phrase sequences of an index snapshot:
 * term ids below 128 take one byte and below 16,384 two, instead of four (the two lists were a third
 * of a 100,000-document snapshot, kept in memory after loading).
 */

/** Appends varints to a buffer that grows as needed. */
export class VarintWriter {
  #bytes = new Uint8Array(1024);
  length = 0;

  write(value: number) {
    if (this.length + 5 > this.#bytes.length) {
      const grown = new Uint8Array(this.#bytes.length * 2);
      grown.set(this.#bytes);
      this.#bytes = grown;
    }
    let v = value >>> 0;
    while (v >= 0x80) {
      this.#bytes[this.length++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    this.#bytes[this.length++] = v;
  }

  /**
   * The bytes written, as a view into the writer's buffer (no copy: a snapshot copies its sections
   * into its frame anyway, and a copy here was one more of the largest sections while an index packs).
   */
  bytes(): Uint8Array {
    return this.#bytes.subarray(0, this.length);
  }
}

/**
 * The varints in bytes [from, to); with `delta`, each is added to the one before (a sorted list
 * written as differences).
 */
export function readVarints(bytes: Uint8Array, from: number, to: number, delta = false): Int32Array {
  let n = 0;
  for (let i = from; i < to; i++) if (bytes[i]! < 0x80) n++;
  const out = new Int32Array(n);
  let value = 0, shift = 0, k = 0, previous = 0;
  for (let i = from; i < to; i++) {
    const b = bytes[i]!;
    value += (b & 0x7f) * 2 ** shift;
    if (b >= 0x80) {
      shift += 7;
      continue;
    }
    if (delta) value = previous += value;
    out[k++] = value;
    value = 0;
    shift = 0;
  }
  return out;
}

/** Decodes the varints in bytes [from, to) into `out` (long enough: one per byte at most); their count. */
export function decodeVarints(bytes: Uint8Array, from: number, to: number, out: Int32Array): number {
  let k = 0;
  for (let i = from; i < to;) {
    let b = bytes[i++]!;
    if (b < 0x80) {
      out[k++] = b;
      continue;
    }
    let value = b & 0x7f, shift = 7;
    do {
      b = bytes[i++]!;
      value += (b & 0x7f) * 2 ** shift;
      shift += 7;
    } while (b >= 0x80 && i < to);
    out[k++] = value;
  }
  return k;
}
