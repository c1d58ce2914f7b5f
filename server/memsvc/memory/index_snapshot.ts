/**
 * When the vector index is saved to and loaded from its snapshot file in the data directory:
 * loaded before the server listens (tens of milliseconds for 100k vectors, against seconds to read
 * them from the embedded database), saved after a warm-up that read many vectors, every few
 * minutes while it changes, and at shutdown. A failure to load or save is logged and costs only
 * time: the database stays the source of truth.
 */
import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import type { Logger } from "../../../internal/log/mod.ts";
import type { VectorIndex } from "./vector_index.ts";

export const SNAPSHOT_FILE = "vector-index.bin";
/** Saved when at least this many vectors changed... */
const MIN_CHANGES = 1_000;
/** ...checked this often. */
const SAVE_EVERY_MS = 5 * 60_000;

export class IndexSnapshot {
  #timer: ReturnType<typeof setInterval> | undefined;
  #saving: Promise<void> | undefined;

  constructor(
    private readonly index: VectorIndex,
    private readonly file: string,
    private readonly instance: string,
    private readonly log: Logger,
  ) {}

  async load(): Promise<boolean> {
    const started = performance.now();
    try {
      const loaded = await this.index.load(this.file, this.instance);
      if (loaded) {
        this.log.info("vector index snapshot loaded", {
          vectors: this.index.size,
          ms: Math.round(performance.now() - started),
        });
      }
      return loaded;
    } catch (err) {
      this.log.warn("vector index snapshot not loaded; reading the vectors from the database", { err });
      return false;
    }
  }

  /** Evicts what was deleted while the snapshot was on disk. */
  async reconcile() {
    try {
      const evicted = await this.index.reconcile();
      if (evicted) this.log.info("vector index: dropped entries deleted since the snapshot", { evicted });
    } catch (err) {
      this.log.warn("vector index reconcile failed; deleted entries are dropped when a search meets them", {
        err,
      });
    }
  }

  /** After the warm-up: saves now if it read many vectors, then every few minutes. */
  start() {
    if (this.index.unsaved >= MIN_CHANGES) void this.save();
    this.#timer = setInterval(() => {
      if (this.index.unsaved >= MIN_CHANGES) void this.save();
    }, SAVE_EVERY_MS);
    this.#timer.unref?.();
  }

  async stop() {
    clearInterval(this.#timer);
    await this.#saving;
    if (this.index.unsaved > 0) await this.save();
  }

  save(): Promise<void> {
    return this.#saving ??= this.#save().finally(() => (this.#saving = undefined));
  }

  async #save() {
    const started = performance.now();
    try {
      await mkdir(dirname(this.file), { recursive: true, mode: 0o700 });
      await this.index.save(this.file, this.instance);
      this.log.info("vector index snapshot saved", {
        vectors: this.index.size,
        ms: Math.round(performance.now() - started),
      });
    } catch (err) {
      this.log.warn("vector index snapshot not saved; the next start reads the vectors instead", { err });
    }
  }
}
