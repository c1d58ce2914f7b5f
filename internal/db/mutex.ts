/**
 * A minimal async mutex. PGlite is a single PostgreSQL session, so whoever holds it (a query or a
 * whole transaction) must finish before anyone else may send a statement.
 *
 * @example
 * const release = await mutex.lock();
 * try { await work(); } finally { release(); }
 */
export class Mutex {
  #tail: Promise<void> = Promise.resolve();

  /** Resolves once every earlier holder has released; returns this holder's release function. */
  lock(): Promise<() => void> {
    let release!: () => void;
    const released = new Promise<void>((resolve) => release = resolve);
    const acquired = this.#tail.then(() => release);
    this.#tail = this.#tail.then(() => released);
    return acquired;
  }
}
