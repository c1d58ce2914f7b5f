/**
 * Pauses between requests, for background statements on the embedded database. PGlite runs each
 * statement on the server's one thread, so a background statement delays every request that
 * arrives while it runs by up to its whole length: at 100,000 entries a hit-count batch took 20–130
 * ms and a page of the post-start reconcile 50–450 ms, and searches that met them were the 100k
 * tail. Such work waits here for a pause — no request in flight and none for `idleMs` — or for
 * `maxMs` at the most, so a steady stream of requests delays it but cannot starve it.
 *
 * On PostgreSQL background statements run on other connections without holding the thread: there
 * nothing waits (the server passes no pauses).
 *
 * @example
 * const pauses = new RequestPauses();
 * api.use(pauses.middleware);
 * await pauses.pause(PAUSE_IDLE_MS, 60_000, signal); // then run one background statement
 */
import type { MiddlewareHandler } from "hono";
import { sleep } from "../../../internal/async/sleep.ts";

/** A pause this long without requests is taken as the moment for a background statement. */
export const PAUSE_IDLE_MS = 200;

export class RequestPauses {
  #inFlight = 0;
  /** performance.now() when the last request started or ended. */
  #lastAt = -Infinity;

  /** Marks a request as running; call the returned function when it is answered. */
  begin(): () => void {
    this.#inFlight++;
    this.#lastAt = performance.now();
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.#inFlight--;
      this.#lastAt = performance.now();
    };
  }

  /** Counts every request it sees (mount it before the routes). */
  readonly middleware: MiddlewareHandler = async (_c, next) => {
    const end = this.begin();
    try {
      await next();
    } finally {
      end();
    }
  };

  /** Whether no request is running and none ran for `idleMs`. */
  idle(idleMs: number): boolean {
    return this.#inFlight === 0 && performance.now() - this.#lastAt >= idleMs;
  }

  /**
   * Resolves at the first pause of `idleMs` without requests, after `maxMs` at the latest, or at once
   * when `signal` is aborted (shutdown: the work then runs without waiting).
   */
  async pause(idleMs: number, maxMs: number, signal?: AbortSignal): Promise<void> {
    const deadline = performance.now() + maxMs;
    while (!signal?.aborted && !this.idle(idleMs)) {
      const now = performance.now();
      if (now >= deadline) return;
      // Until the current quiet stretch would be long enough (or a full idleMs while one is running).
      const quietFor = this.#inFlight === 0 ? now - this.#lastAt : 0;
      await sleep(Math.max(1, Math.min(idleMs - quietFor, deadline - now)), signal);
    }
  }
}
