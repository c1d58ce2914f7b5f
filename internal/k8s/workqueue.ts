/**
 * A work queue of object keys for controllers, with client-go's semantics: a key waiting in the queue
 * is held once however often it is added; a key being processed is never handed to a second worker
 * (added again meanwhile, it is queued when the first worker is done), so each object has at most
 * one reconcile in flight; failed keys come back after a per-key exponential backoff.
 *
 * @example
 * const queue = new WorkQueue<string>();
 * informer.onEvent((e) => queue.add(keyOf(e.object)));
 * await runWorkers(queue, 4, async (key) => {
 *   const requeueAfterMs = await reconcile(key);  // throw to retry with backoff
 *   return { requeueAfterMs };
 * });
 */

export interface BackoffOptions {
  /** First retry delay; default 5 ms (client-go's). */
  baseMs?: number;
  /** Longest delay; default 5 minutes. */
  maxMs?: number;
}

export class WorkQueue<K> {
  private readonly queue: K[] = [];
  private readonly dirty = new Set<K>();
  private readonly processing = new Set<K>();
  private readonly failures = new Map<K, number>();
  private readonly timers = new Set<ReturnType<typeof setTimeout>>();
  private waiters: ((key: K | undefined) => void)[] = [];
  private closed = false;
  private readonly baseMs: number;
  private readonly maxMs: number;

  constructor(options: BackoffOptions = {}) {
    this.baseMs = options.baseMs ?? 5;
    this.maxMs = options.maxMs ?? 5 * 60_000;
  }

  /** Queues `key` unless it is already waiting. */
  add(key: K): void {
    if (this.closed || this.dirty.has(key)) return;
    this.dirty.add(key);
    if (this.processing.has(key)) return;
    const waiter = this.waiters.shift();
    if (waiter) {
      this.dirty.delete(key);
      this.processing.add(key);
      waiter(key);
    } else {
      this.queue.push(key);
    }
  }

  /** Queues `key` after `ms`. */
  addAfter(key: K, ms: number): void {
    if (this.closed) return;
    if (ms <= 0) return this.add(key);
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.add(key);
    }, ms);
    this.timers.add(timer);
  }

  /** Queues `key` after its backoff, which doubles with each failure since the last `forget`. */
  addRateLimited(key: K): void {
    const n = this.failures.get(key) ?? 0;
    this.failures.set(key, n + 1);
    this.addAfter(key, Math.min(this.baseMs * 2 ** n, this.maxMs));
  }

  /** Resets the backoff of `key` (after a successful reconcile). */
  forget(key: K): void {
    this.failures.delete(key);
  }

  /** Failures of `key` since the last `forget`. */
  retries(key: K): number {
    return this.failures.get(key) ?? 0;
  }

  /** The next key, waiting for one; undefined once the queue is shut down. Call `done` after. */
  get(): Promise<K | undefined> {
    const key = this.queue.shift();
    if (key !== undefined) {
      this.dirty.delete(key);
      this.processing.add(key);
      return Promise.resolve(key);
    }
    if (this.closed) return Promise.resolve(undefined);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Marks `key` processed; if it was added meanwhile, it is queued again. */
  done(key: K): void {
    this.processing.delete(key);
    if (this.dirty.has(key)) {
      this.dirty.delete(key);
      this.add(key);
    }
  }

  /** Keys waiting (not those being processed or delayed). */
  get length(): number {
    return this.queue.length;
  }

  /** Stops handing out keys: waiting `get`s return undefined, delayed adds are dropped. */
  shutDown(): void {
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    for (const w of this.waiters.splice(0)) w(undefined);
  }
}

export interface ReconcileResult {
  /** Reconcile this key again after so long even if nothing changes (polling, health re-checks). */
  requeueAfterMs?: number;
}

/**
 * Runs `workers` loops taking keys from `queue` until it shuts down. A reconcile that throws is
 * retried with backoff (`onError` sees the error); one that returns `requeueAfterMs` is queued again
 * then. Resolves when every worker has stopped.
 */
export async function runWorkers<K>(
  queue: WorkQueue<K>,
  workers: number,
  reconcile: (key: K) => Promise<ReconcileResult | void>,
  onError: (key: K, err: unknown) => void = () => {},
): Promise<void> {
  const worker = async () => {
    for (let key = await queue.get(); key !== undefined; key = await queue.get()) {
      try {
        const result = await reconcile(key);
        queue.forget(key);
        if (result?.requeueAfterMs !== undefined) queue.addAfter(key, result.requeueAfterMs);
      } catch (err) {
        onError(key, err);
        queue.addRateLimited(key);
      } finally {
        queue.done(key);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, workers) }, worker));
}
