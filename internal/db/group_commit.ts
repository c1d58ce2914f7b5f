/**
 * Group commit: callers submit one item each; items that arrive while a batch is being written wait
 * and go together in the next batch, so N concurrent writers pay one transaction (one commit, one
 * WAL flush) instead of N. A lone writer never waits: its batch of one starts at once.
 *
 * The caller's promise settles only after its batch's `write` has returned, i.e. after the commit,
 * so an acknowledged item is durable. When a batch fails as a whole (one bad row aborts the
 * transaction), each item is retried alone so that only the bad one fails.
 *
 * On a single-threaded database (PGlite) requests reach `submit` one after another, each after its
 * own reads, so a batch would rarely find company. With `gather`, a batch about to start waits (at
 * most `maxWaitMs`) while callers that have announced themselves (`pending() > 0`) have yet to
 * submit: PostgreSQL's commit_delay idea, taken only when there is someone to wait for. With
 * `coalesce`, a batch first lets the event loop turn once (setImmediate): callers whose requests
 * were read in the same turn, and whose path to `submit` has no await that leaves the turn, join it
 * instead of each starting a batch of its own behind the first.
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
  /** Wait for callers on their way: `pending()` counts those that will submit soon. */
  gather?: { pending: () => number; maxWaitMs: number };
  /** Let the event loop turn once before a batch starts, so that callers of the same turn join it. */
  coalesce?: boolean;
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
  #gathering: ReturnType<typeof setTimeout> | undefined;
  #gathered = false;
  #turning: ReturnType<typeof setImmediate> | undefined;
  #turned = false;

  /** `write` stores a batch in one transaction and returns one result per item, in order. */
  constructor(
    private readonly write: (items: T[]) => Promise<R[]>,
    private readonly options: GroupCommitOptions = {},
  ) {
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
      // The last caller the batch waited for has arrived: go now.
      if (this.#gathering && this.options.gather!.pending() === 0) this.#endGathering();
      this.#pump();
    });
  }

  #endGathering() {
    clearTimeout(this.#gathering);
    this.#gathering = undefined;
    this.#gathered = true;
  }

  #pump() {
    if (this.#gathering || this.#turning) return;
    while (this.#running < this.#concurrency && this.#queue.length > 0) {
      if (this.options.coalesce && !this.#turned && this.#queue.length < this.#maxBatch) {
        this.#turning = setImmediate(() => {
          this.#turning = undefined;
          this.#turned = true;
          this.#pump();
        });
        return;
      }
      const gather = this.options.gather;
      if (gather && !this.#gathered && gather.pending() > 0 && this.#queue.length < this.#maxBatch) {
        this.#gathering = setTimeout(() => {
          this.#endGathering();
          this.#pump();
        }, gather.maxWaitMs);
        return;
      }
      this.#gathered = false;
      this.#turned = false;
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
