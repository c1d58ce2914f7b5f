/**
 * String ids to small integers (document numbers, slots) in one Int32Array: open addressing with
 * linear probing, the keys themselves kept by the caller (`keyOf`), not copied. A Map<string, number>
 * of 100,000 ids is about 6.5 MB in JavaScriptCore and 100–250 ms to fill; this is 1 MB and a
 * tenth of the time, which an index loaded from a snapshot at start pays before its first search.
 * A loaded range of values can be adopted as it is and hashed only when a key is first looked up:
 * a search by terms needs no lookup by id, so the first search after a start does not wait for it.
 *
 * The keys can also come from an `IdKeys` that hashes and compares them where they are kept (a byte
 * table: compact_ids.ts), so that neither a lookup nor a resize makes a string per probe.
 */

/** Keys kept by the caller, hashed and compared without a string per stored key. */
export interface IdKeys {
  /** `key`'s hash; readies `matches` for it (until the next call). */
  hash(key: string): number;
  /** Whether `value`'s key is the key last given to `hash`. */
  matches(value: number, key: string): boolean;
  /** The hash of `value`'s key: what `hash` gives for it. */
  hashOf(value: number): number;
}

/** IdKeys over a `keyOf` function: keys compared as strings. */
function stringKeys(keyOf: (value: number) => string | undefined): IdKeys {
  return {
    hash: hashString,
    matches: (value, key) => keyOf(value) === key,
    hashOf: (value) => hashString(keyOf(value)!),
  };
}

const EMPTY = 0;
/** A deleted slot: probes go on past it, inserts may reuse it. */
const GONE = -1;

export class IdTable {
  /** value + 1, EMPTY or GONE. */
  #slots = new Int32Array(16);
  #size = 0;
  /** Live and GONE slots: the table grows (or is rebuilt) past half full. */
  #used = 0;
  /** Values adopted and not hashed yet: [from, to). */
  #adoptedFrom = 0;
  #adoptedTo = 0;

  readonly #keys: IdKeys;

  /**
   * `keys(value)` (or `keys.matches`) answers for the id a value was set for, as long as it is in the
   * table.
   */
  constructor(keys: ((value: number) => string | undefined) | IdKeys) {
    this.#keys = typeof keys === "function" ? stringKeys(keys) : keys;
  }

  get size(): number {
    return this.#size + this.#adoptedTo - this.#adoptedFrom;
  }

  /**
   * Takes the values [from, to), whose keys the caller already answers for (distinct, and none in the table),
   * hashing them when a key is first looked up, set or deleted.
   */
  adopt(from: number, to: number) {
    if (from === this.#adoptedTo && this.#adoptedTo > this.#adoptedFrom) {
      this.#adoptedTo = to;
      return;
    }
    this.#hashAdopted();
    this.#adoptedFrom = from;
    this.#adoptedTo = to;
  }

  get(key: string): number | undefined {
    this.#hashAdopted();
    const slots = this.#slots, mask = slots.length - 1, keys = this.#keys;
    for (let i = keys.hash(key) & mask;; i = (i + 1) & mask) {
      const s = slots[i]!;
      if (s === EMPTY) return undefined;
      if (s !== GONE && keys.matches(s - 1, key)) return s - 1;
    }
  }

  has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  /** Sets the key's value; the caller must already answer `key` for `value`. */
  set(key: string, value: number) {
    this.#hashAdopted();
    if ((this.#used + 1) * 2 > this.#slots.length) this.#resize();
    const slots = this.#slots, mask = slots.length - 1, keys = this.#keys;
    let free = -1;
    for (let i = keys.hash(key) & mask;; i = (i + 1) & mask) {
      const s = slots[i]!;
      if (s === EMPTY) {
        if (free < 0) {
          free = i;
          this.#used++;
        }
        break;
      }
      if (s === GONE) {
        if (free < 0) free = i;
        continue;
      }
      if (keys.matches(s - 1, key)) {
        slots[i] = value + 1;
        return;
      }
    }
    slots[free] = value + 1;
    this.#size++;
  }

  /** Removes the key; call before the caller stops answering for its value. */
  delete(key: string): boolean {
    this.#hashAdopted();
    const slots = this.#slots, mask = slots.length - 1, keys = this.#keys;
    for (let i = keys.hash(key) & mask;; i = (i + 1) & mask) {
      const s = slots[i]!;
      if (s === EMPTY) return false;
      if (s !== GONE && keys.matches(s - 1, key)) {
        slots[i] = GONE;
        this.#size--;
        return true;
      }
    }
  }

  /** Room for at least `n` keys without growing (a bulk load sizes the table once). */
  reserve(n: number) {
    this.#hashAdopted();
    if ((Math.max(n, this.#size) + 1) * 2 > this.#slots.length) this.#resize(n);
  }

  #hashAdopted() {
    const from = this.#adoptedFrom, to = this.#adoptedTo;
    if (to <= from) return;
    this.#adoptedFrom = this.#adoptedTo = 0;
    this.reserve(this.#size + to - from);
    // Distinct keys, none in the table (adopt's contract): each goes to its first empty slot.
    const slots = this.#slots, mask = slots.length - 1, keys = this.#keys;
    for (let v = from; v < to; v++) {
      let i = keys.hashOf(v) & mask;
      while (slots[i] !== EMPTY) i = (i + 1) & mask;
      slots[i] = v + 1;
    }
    this.#size += to - from;
    this.#used += to - from;
  }

  /** Rehashes into a table at most half full once the live keys are in (GONE slots dropped). */
  #resize(atLeast = 0) {
    const old = this.#slots;
    let capacity = 16;
    while (capacity < (Math.max(atLeast, this.#size) + 1) * 2) capacity *= 2;
    const slots = new Int32Array(capacity), mask = capacity - 1, keys = this.#keys;
    for (const s of old) {
      if (s === EMPTY || s === GONE) continue;
      let i = keys.hashOf(s - 1) & mask;
      while (slots[i] !== EMPTY) i = (i + 1) & mask;
      slots[i] = s;
    }
    this.#slots = slots;
    this.#used = this.#size;
  }
}

/** FNV-1a over the UTF-16 code units, with a final mix so that the low bits (the slot) vary. */
export function hashString(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  return (h ^ (h >>> 13)) >>> 0;
}
