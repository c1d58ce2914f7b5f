/** A Map bounded to `capacity` keys: adding one more drops the least recently used key. */
export class LruMap<K, V> {
  readonly #map = new Map<K, V>();

  constructor(readonly capacity: number) {}

  get size(): number {
    return this.#map.size;
  }

  /** The value of `key` (created by `init` when missing), now the most recently used. */
  upsert(key: K, init: () => V): V {
    let value = this.#map.get(key);
    // A Map iterates in insertion order, so re-inserting moves the key to the young end.
    if (value !== undefined) this.#map.delete(key);
    else value = init();
    this.#map.set(key, value);
    if (this.#map.size > this.capacity) this.#map.delete(this.#map.keys().next().value as K);
    return value;
  }

  entries(): IterableIterator<[K, V]> {
    return this.#map.entries();
  }
}
