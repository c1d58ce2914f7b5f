/**
 * Group commit: callers submit one item each; items that arrive while a batch is being written wait
 * and go together in the next batch, so N concurrent writers pay one transaction (one commit, one
 * WAL flush) instead of N. A lone writer never waits: its batch of one starts at once.
 *
 * The caller's promise settles only after its batch's `write` has returned, i.e. after the commit,
 * so an acknowledged item is durable. When a batch fails as a whole (one bad row aborts the
 * transaction), each item is retried alone so that only the bad one fails.
 *
 * @example
 * const inserts = new GroupCommit((rows) => db.transaction().execute((trx) => insertAll(trx, rows)));
 * const id = await inserts.submit(row);
 */
export interface GroupCommitOptions {
  /** Items per batch at most (default 256). */
  maxBatch?: number;
  /** Batches written at the same time (default 1; PostgreSQL can overlap a few). */
  concurrency?: number;
}

interface Pending<T, R> {
  item: T;
  resolve(result: R): void;
  reject(err: unknown): void;
}

export class GroupCommit<T, R> {
  readonly #queue: Pending<T, R>[] = [];
  readonly #maxBatch: number;
  readonly #concurrency: number;
  #running = 0;

  /** `write` stores a batch in one transaction and returns one result per item, in order. */
  constructor(private readonly write: (items: T[]) => Promise<R[]>, options: GroupCommitOptions = {}) {
    this.#maxBatch = options.maxBatch ?? 256;
    this.#concurrency = options.concurrency ?? 1;
  }

  /** Items waiting for a batch (not counting those being written). */
  get waiting(): number {
    return this.#queue.length;
  }

  submit(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.#queue.push({ item, resolve, reject });
      this.#pump();
    });
  }

  #pump() {
    while (this.#running < this.#concurrency && this.#queue.length > 0) {
      const batch = this.#queue.splice(0, this.#maxBatch);
      this.#running++;
      this.#run(batch).finally(() => {
        this.#running--;
        this.#pump();
      });
    }
  }

  async #run(batch: Pending<T, R>[]) {
    try {
      const results = await this.write(batch.map((p) => p.item));
      if (results.length !== batch.length) {
        throw new Error(`group commit: ${results.length} results for ${batch.length} items`);
      }
      batch.forEach((p, i) => p.resolve(results[i]!));
    } catch (err) {
      if (batch.length === 1) {
        batch[0]!.reject(err);
        return;
      }
      // One item can fail a whole transaction: retry alone, so only that item's caller sees it.
      for (const p of batch) {
        try {
          const [result] = await this.write([p.item]);
          p.resolve(result!);
        } catch (itemErr) {
          p.reject(itemErr);
        }
      }
    }
  }
}
