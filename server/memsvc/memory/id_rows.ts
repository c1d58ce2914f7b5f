/**
 * Where each vector of a vector index is: one id → (partition, row) table for all of its partitions.
 * A Map of 100,000 string keys cost about 6–8 MB and 45 ms to fill at start (Bun), and each
 * partition's ids as an array of strings about 6 MB more. Here an id has a number in the tier
 * (`IdSpace`): its bytes in a table (internal/fulltext/compact_ids.ts: 12 bytes for memsvc's
 * `m_` + 24 hex ids, other ids kept as strings), found by an Int32Array hash over those bytes
 * (`IdTable`), with its partition and row in two columns; a partition keeps its rows' numbers. An id
 * is a string again only when asked for (`IdRows.idAt`: the candidates a scan offers).
 *
 * @example
 * const tier = new IdSpace();
 * const rows = new IdRows(tier, 3); // partition 3's entries
 * rows.set("m_1", 42); // tier.partitionOf("m_1") → 3, rows.get("m_1") → 42
 */
import { CompactIds, IdTable } from "../../../internal/fulltext/mod.ts";

export const MAX_PARTITIONS = 2 ** 31 - 1;
/** Bytes of a compact id (`m_` + 24 hex digits), as CompactIds keeps and a snapshot stores it. */
export const ID_BYTES = 12;

/**
 * A partition's ids as a snapshot stores them: ID_BYTES a row, and the rows whose id has another
 * shape (imported ids) listed with it (their bytes unused). No string per row.
 */
export interface PackedIds {
  rows: number;
  bytes: Uint8Array<ArrayBuffer>;
  others: [row: number, id: string][];
}

/** Rows of a partition's ids, in either form. */
export function idCount(ids: readonly string[] | PackedIds): number {
  return Array.isArray(ids) ? ids.length : (ids as PackedIds).rows;
}

/** The ids of a vector tier, numbered; each number's partition tag and row. */
export class IdSpace {
  readonly #ids = new CompactIds("m_", ID_BYTES);
  readonly #table = new IdTable(this.#ids);
  #tag = new Int32Array(16);
  #row = new Int32Array(16);
  /** By number: `#clock` when the id was numbered (a reused number is a new id). */
  #born = new Float64Array(16);
  #clock = 0;
  /** Numbers freed by deletes, reused first. */
  readonly #free: number[] = [];
  #next = 0;

  get size(): number {
    return this.#table.size;
  }

  /** Ticks once per id numbered: ids numbered after a reading of it have a later `bornAt`. */
  get clock(): number {
    return this.#clock;
  }

  /** Numbers in use are below this. */
  get limit(): number {
    return this.#next;
  }

  /**
   * The ids numbered at or before `clock` whose number is not marked in `seen` (a pass over the
   * stored ids marks what it finds: vector_index.ts `reconcile`), as strings.
   */
  unmarked(seen: Uint8Array, clock: number): string[] {
    const out: string[] = [];
    for (let n = 0; n < this.#next; n++) {
      if (this.#born[n]! <= clock && !(n < seen.length && seen[n]) && this.#ids.has(n)) {
        out.push(this.idAt(n));
      }
    }
    return out;
  }

  /** The number of `id`, if it is in the tier. */
  numberOf(id: string): number | undefined {
    return this.#table.get(id);
  }

  /** The tag of the partition `id` is in, if any. */
  partitionOf(id: string): number | undefined {
    const n = this.#table.get(id);
    return n === undefined ? undefined : this.#tag[n];
  }

  tagAt(n: number): number {
    return this.#tag[n]!;
  }

  rowAt(n: number): number {
    return this.#row[n]!;
  }

  /** The id numbered `n`, as a new string. */
  idAt(n: number): string {
    return this.#ids.keyOf(n)!;
  }

  /** Every id, as strings. */
  *ids(): IterableIterator<string> {
    for (let n = 0; n < this.#next; n++) if (this.#ids.has(n)) yield this.#ids.keyOf(n)!;
  }

  /** Numbers a new id (not in the tier) at `tag`, `row`. */
  add(id: string, tag: number, row: number): number {
    const n = this.#free.pop() ?? this.#grow();
    this.#ids.set(n, id);
    this.#born[n] = ++this.#clock;
    this.#tag[n] = tag;
    this.#row[n] = row;
    this.#table.set(id, n);
    return n;
  }

  /** Copies `n`'s bytes to `to[at]` if its id is compact; false if it has another shape. */
  copyBytes(n: number, to: Uint8Array, at: number): boolean {
    return this.#ids.copyBytes(n, to, at);
  }

  /** Moves number `n` to `row` of partition `tag`. */
  place(n: number, tag: number, row: number) {
    this.#tag[n] = tag;
    this.#row[n] = row;
  }

  /** Forgets `id` (numbered `n`). */
  remove(id: string, n: number) {
    this.#table.delete(id);
    this.#ids.delete(n);
    this.#free.push(n);
  }

  /**
   * Numbers a snapshot's ids (distinct, none in the tier) at rows 0… of partition `tag`, in one
   * range: each id is parsed once and hashed from its bytes. Hashed here, before the server listens,
   * not at the first lookup by id: a search's error bounds look up its candidates. The first number.
   */
  load(ids: readonly string[] | PackedIds, tag: number): number {
    const first = this.#next;
    const strings = Array.isArray(ids) ? ids as readonly string[] : undefined;
    const packed = strings ? undefined : ids as PackedIds;
    const rows = idCount(ids);
    if (packed && packed.bytes.length !== rows * ID_BYTES) throw new Error("packed ids: wrong length");
    for (let row = 0; row < rows; row++) {
      const n = this.#grow();
      if (strings) this.#ids.set(n, strings[row]!);
      this.#born[n] = this.#clock;
      this.#tag[n] = tag;
      this.#row[n] = row;
    }
    if (packed) this.#ids.setBytesRange(first, packed.bytes);
    for (const [row, id] of packed?.others ?? []) {
      if (!Number.isInteger(row) || row < 0 || row >= rows) throw new Error("packed ids: row out of range");
      this.#ids.set(first + row, id);
    }
    this.#table.adopt(first, this.#next);
    this.#table.reserve(0);
    return first;
  }

  #grow(): number {
    const n = this.#next++;
    if (n >= this.#tag.length) {
      const tag = new Int32Array(this.#tag.length * 2), row = new Int32Array(this.#row.length * 2);
      const born = new Float64Array(this.#born.length * 2);
      tag.set(this.#tag), row.set(this.#row), born.set(this.#born);
      this.#tag = tag, this.#row = row, this.#born = born;
    }
    return n;
  }
}

/** One partition's view of its tier's ids: row → number, and the tier's lookups limited to its own. */
export class IdRows {
  #size = 0;
  /** By row: the id's number in the tier, or -1 (a dead row). */
  #numbers = new Int32Array(16).fill(-1);

  constructor(readonly tier: IdSpace, readonly tag: number) {
    if (!Number.isInteger(tag) || tag < 0 || tag >= MAX_PARTITIONS) {
      throw new RangeError(`partition tag ${tag}`);
    }
  }

  /** A partition alone, with a tier of its own. */
  static own(): IdRows {
    return new IdRows(new IdSpace(), 0);
  }

  /** Entries of this partition. */
  get size(): number {
    return this.#size;
  }

  get(id: string): number | undefined {
    const n = this.tier.numberOf(id);
    return n === undefined || this.tier.tagAt(n) !== this.tag ? undefined : this.tier.rowAt(n);
  }

  has(id: string): boolean {
    return this.get(id) !== undefined;
  }

  /** The tier's number of the id at `row`, or -1. */
  numberAt(row: number): number {
    return row < this.#numbers.length ? this.#numbers[row]! : -1;
  }

  /** The id at `row` (a new string), or undefined for a dead row. */
  idAt(row: number): string | undefined {
    const n = this.numberAt(row);
    return n < 0 ? undefined : this.tier.idAt(n);
  }

  /** Files `id` at `row` of this partition (the caller has taken it out of any other first). */
  set(id: string, row: number) {
    this.#room(row + 1);
    const n = this.tier.numberOf(id);
    if (n === undefined) {
      this.#numbers[row] = this.tier.add(id, this.tag, row);
      this.#size++;
      return;
    }
    if (this.tier.tagAt(n) !== this.tag) throw new Error(`id ${id} is in another partition`);
    const was = this.tier.rowAt(n);
    if (this.#numbers[was] === n) this.#numbers[was] = -1;
    this.tier.place(n, this.tag, row);
    this.#numbers[row] = n;
  }

  delete(id: string): boolean {
    const n = this.tier.numberOf(id);
    if (n === undefined || this.tier.tagAt(n) !== this.tag) return false;
    const row = this.tier.rowAt(n);
    if (this.#numbers[row] === n) this.#numbers[row] = -1;
    this.tier.remove(id, n);
    this.#size--;
    return true;
  }

  /** Files a snapshot's ids (distinct, none in the tier) at rows 0… of an empty partition. */
  load(ids: readonly string[] | PackedIds) {
    if (this.#size > 0) throw new Error("ids loaded into a partition that holds some");
    const rows = idCount(ids);
    this.#room(rows);
    const first = this.tier.load(ids, this.tag);
    for (let row = 0; row < rows; row++) this.#numbers[row] = first + row;
    this.#size = rows;
  }

  /** The ids of rows 0… `rows` (all live) as a snapshot stores them. */
  packed(rows: number): PackedIds {
    const bytes = new Uint8Array(rows * ID_BYTES), others: [number, string][] = [];
    for (let row = 0; row < rows; row++) {
      const n = this.numberAt(row);
      if (n < 0) throw new Error(`packed ids: row ${row} is dead`);
      if (!this.tier.copyBytes(n, bytes, row * ID_BYTES)) others.push([row, this.tier.idAt(n)]);
    }
    return { rows, bytes, others };
  }

  #room(rows: number) {
    if (rows <= this.#numbers.length) return;
    let n = this.#numbers.length;
    while (n < rows) n *= 2;
    const numbers = new Int32Array(n).fill(-1);
    numbers.set(this.#numbers);
    this.#numbers = numbers;
  }
}
