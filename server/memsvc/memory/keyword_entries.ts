/**
 * The keyword index's per-entry metadata as columns (struct of arrays), one slot per entry: no object
 * per entry, so 100,000 entries cost a few MB of typed arrays instead of 100,000 objects and a Map, and
 * a snapshot's columns load with one copy each. Partitions are interned as small ints; an entry's
 * conversation is an index into `conversations`. Slots of removed entries are reused.
 */
import { IdTable } from "../../../internal/fulltext/mod.ts";

/** One conversation's entry ids in capture order (parallel arrays: no object per turn). */
export class Conversation {
  readonly ids: string[] = [];
  readonly #captures: number[] = [];
  /** `key`: partition, user and session; `number`: its index in `Entries.conversations`. */
  constructor(readonly key: string, readonly number: number) {}

  /** Where a turn with this capture position is, or goes (binary search). */
  position(capture: number): number {
    const captures = this.#captures;
    let lo = 0, hi = captures.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (captures[mid]! < capture) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  insert(id: string, capture: number) {
    const at = this.position(capture);
    this.ids.splice(at, 0, id);
    this.#captures.splice(at, 0, capture);
  }

  delete(capture: number) {
    const at = this.position(capture);
    this.ids.splice(at, 1);
    this.#captures.splice(at, 1);
  }

  /** For bulk loading: append in any order, then sort once. */
  append(id: string, capture: number) {
    this.ids.push(id);
    this.#captures.push(capture);
  }

  sort() {
    const order = this.ids.map((_, i) => i).sort((a, b) => this.#captures[a]! - this.#captures[b]!);
    const ids = order.map((i) => this.ids[i]!), captures = order.map((i) => this.#captures[i]!);
    ids.forEach((id, i) => (this.ids[i] = id));
    captures.forEach((c, i) => (this.#captures[i] = c));
  }
}

/** What a slot holds, given to `Entries.set`. */
export interface EntryMeta {
  partition: number;
  cold: boolean;
  /** Conversation number, or -1. */
  session: number;
  capture: number;
  change: number;
  /** Hash of the indexed text (content and tags): an unchanged hash means only flags moved. */
  hash: number;
}

export class Entries {
  /** By slot: the entry's id, undefined for a free slot. */
  readonly ids: (string | undefined)[] = [];
  readonly #slotOf = new IdTable((slot) => this.ids[slot]);
  readonly #free: number[] = [];
  partition = new Int32Array(16);
  cold = new Uint8Array(16);
  session = new Int32Array(16);
  capture = new Float64Array(16);
  change = new Float64Array(16);
  hash = new Float64Array(16);
  /** Interned partition keys. */
  readonly partitions: string[] = [];
  readonly #partitionIds = new Map<string, number>();
  /** By number; undefined once empty. Numbers are not reused (a slot of an array each, at most). */
  readonly conversations: (Conversation | undefined)[] = [];
  /** Conversations by key. */
  readonly sessions = new Map<string, Conversation>();

  get size(): number {
    return this.#slotOf.size;
  }

  slot(id: string): number | undefined {
    return this.#slotOf.get(id);
  }

  partitionId(key: string): number {
    let p = this.#partitionIds.get(key);
    if (p === undefined) this.#partitionIds.set(key, p = this.partitions.push(key) - 1);
    return p;
  }

  /** The partition's number, or undefined when no entry was ever in it. */
  knownPartition(key: string): number | undefined {
    return this.#partitionIds.get(key);
  }

  /** The conversation with this key, made when new. */
  conversation(key: string): Conversation {
    let c = this.sessions.get(key);
    if (!c) {
      c = new Conversation(key, this.conversations.length);
      this.conversations.push(c);
      this.sessions.set(key, c);
    }
    return c;
  }

  dropConversation(c: Conversation) {
    this.sessions.delete(c.key);
    this.conversations[c.number] = undefined;
  }

  /** The entry's conversation, if it has one. */
  conversationOf(slot: number): Conversation | undefined {
    const s = this.session[slot]!;
    return s < 0 ? undefined : this.conversations[s];
  }

  /** A slot for a new entry (its columns set by the caller). */
  add(id: string): number {
    const slot = this.#free.pop() ?? this.#grow(1);
    this.ids[slot] = id;
    this.#slotOf.set(id, slot);
    return slot;
  }

  /**
   * Consecutive new slots for these ids (a snapshot's, none in the table yet); the first one's number.
   * They are hashed when an id is first looked up: a search by terms needs none.
   */
  load(ids: string[]): number {
    const first = this.#grow(ids.length);
    for (let i = 0; i < ids.length; i++) this.ids[first + i] = ids[i];
    this.#slotOf.adopt(first, first + ids.length);
    return first;
  }

  set(slot: number, m: EntryMeta) {
    this.partition[slot] = m.partition;
    this.cold[slot] = m.cold ? 1 : 0;
    this.session[slot] = m.session;
    this.capture[slot] = m.capture;
    this.change[slot] = m.change;
    this.hash[slot] = m.hash;
  }

  delete(slot: number) {
    this.#slotOf.delete(this.ids[slot]!);
    this.ids[slot] = undefined;
    this.#free.push(slot);
  }

  /** Appends `count` slots; the first one's number. */
  #grow(count: number): number {
    const first = this.ids.length;
    for (let i = 0; i < count; i++) this.ids.push(undefined);
    const need = this.ids.length;
    if (need > this.cold.length) {
      let n = this.cold.length;
      while (n < need) n *= 2;
      this.partition = resized(this.partition, new Int32Array(n));
      this.cold = resized(this.cold, new Uint8Array(n));
      this.session = resized(this.session, new Int32Array(n));
      this.capture = resized(this.capture, new Float64Array(n));
      this.change = resized(this.change, new Float64Array(n));
      this.hash = resized(this.hash, new Float64Array(n));
    }
    return first;
  }
}

function resized<T extends Int32Array | Uint8Array | Float64Array>(from: T, to: T): T {
  to.set(from);
  return to;
}
