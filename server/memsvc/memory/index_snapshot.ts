/**
 * When an in-process index is saved to and loaded from its snapshot file in the data directory.
 *
 * - The vector index (vector-index.bin) is loaded before the server listens (tens of milliseconds
 *   for 100k vectors, against seconds to read them from the embedded database), saved after a
 *   warm-up that read many vectors and every few minutes while it changes.
 * - The keyword index (keyword-index.bin) is loaded in the background right after listening (a
 *   search meanwhile waits for it, not for a rebuild), and saved once changes settle (nothing new
 *   for `settleMs`), every few minutes under steady writes, and every `refreshMs` regardless (an
 *   old snapshot is not loaded: see keyword_index.ts).
 *
 * Given `pauses` (the embedded database), a save that falls due while requests run waits for a pause
 * between them (request_pauses.ts), up to SAVE_WAIT_MS: a save serialises the whole index on the
 * server's thread (the keyword index 2.5 s, the vector index 1 s at 100,000 entries).
 *
 * Both are saved at shutdown. A failure to load or save is logged and costs only time: the
 * database stays the source of truth. On PostgreSQL each process keeps its own file in its own data
 * directory (two sharing one directory each write a whole file in turn).
 */
import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import type { Logger } from "../../../internal/log/mod.ts";
import { PAUSE_IDLE_MS, type RequestPauses } from "./request_pauses.ts";

export const SNAPSHOT_FILE = "vector-index.bin";
/** Saved when at least this many entries changed... */
const MIN_CHANGES = 1_000;
/** ...checked this often. */
const SAVE_EVERY_MS = 5 * 60_000;
/** With `settleMs`: how often settling is checked. */
const SETTLE_CHECK_MS = 5_000;
/** With pauses: the longest a due save waits for a pause between requests. */
const SAVE_WAIT_MS = 60_000;

/** What an index offers to be persisted. */
export interface Persisted {
  readonly size: number;
  /** Entries changed since the last save or load. */
  readonly unsaved: number;
  /** When it last changed (ms since the epoch); only needed with `settleMs`. */
  readonly changedAt?: number;
  /** When the snapshot it loaded was saved (ms since the epoch); only needed with `refreshMs`. */
  readonly loadedSavedAt?: number;
  /** Whether the loaded snapshot is mapped rather than read (logged with the load). */
  readonly loadedMapped?: boolean;
  save(file: string, instance: string): Promise<void>;
  /** False when there was no usable snapshot (then the index reads the database). */
  load(file: string, instance: string): Promise<boolean>;
  /** Drops what was deleted while the snapshot was on disk; the number dropped. */
  reconcile?(): Promise<number>;
}

export interface SnapshotOptions {
  /** Names the index in logs ("vector index", "keyword index")... */
  name: string;
  /** ...and what its size counts ("vectors", "entries"). */
  unit: string;
  /** Also save once any change has settled this long (default: only every SAVE_EVERY_MS). */
  settleMs?: number;
  /**
   * Also save, changed or not, when the last save is older than this (checked with `settleMs`, and
   * at stop): a snapshot that stops being loadable with age (keyword index) stays fresh.
   */
  refreshMs?: number;
  /** Pauses between requests a due save waits for (not the one at stop). */
  pauses?: RequestPauses;
}

export class IndexSnapshot {
  #timer: ReturnType<typeof setInterval> | undefined;
  #saving: Promise<void> | undefined;
  #savedAt = Date.now();
  readonly #stopping = new AbortController();
  readonly #name: string;

  constructor(
    private readonly index: Persisted,
    private readonly file: string,
    private readonly instance: string,
    private readonly log: Logger,
    private readonly options: SnapshotOptions = { name: "vector index", unit: "vectors" },
  ) {
    this.#name = options.name;
  }

  async load(): Promise<boolean> {
    const started = performance.now();
    try {
      const loaded = await this.index.load(this.file, this.instance);
      if (loaded) {
        // The file is as old as its save, not as this process: counted from the start, a snapshot
        // loaded at 11 hours was refreshed at 17, past the age at which a start refuses it.
        this.#savedAt = this.index.loadedSavedAt ?? Date.now();
        this.log.info(`${this.#name} snapshot loaded`, {
          [this.options.unit]: this.index.size,
          ms: Math.round(performance.now() - started),
          ...(this.index.loadedMapped ? { mapped: true } : {}),
        });
      }
      return loaded;
    } catch (err) {
      this.log.warn(`${this.#name} snapshot not loaded; reading the database instead`, { err });
      return false;
    }
  }

  /** Evicts what was deleted while the snapshot was on disk. */
  async reconcile() {
    if (!this.index.reconcile) return;
    try {
      const evicted = await this.index.reconcile();
      if (evicted) this.log.info(`${this.#name}: dropped entries deleted since the snapshot`, { evicted });
    } catch (err) {
      this.log.warn(`${this.#name} reconcile failed; deleted entries are dropped when a search meets them`, {
        err,
      });
    }
  }

  /** After the warm-up: saves now if it read many entries, then when due. */
  start() {
    if (this.index.unsaved >= MIN_CHANGES) void this.#saveAtPause();
    const settle = this.options.settleMs;
    this.#timer = setInterval(() => {
      const unsaved = this.index.unsaved, now = Date.now();
      const due = unsaved >= MIN_CHANGES && now - this.#savedAt >= SAVE_EVERY_MS;
      const settled = settle !== undefined && unsaved > 0 && now - (this.index.changedAt ?? now) >= settle;
      if (due || settled || this.#stale()) void this.#saveAtPause();
    }, settle === undefined ? SAVE_EVERY_MS : SETTLE_CHECK_MS);
    this.#timer.unref?.();
  }

  async stop() {
    this.#stopping.abort();
    clearInterval(this.#timer);
    await this.#saving;
    if (this.index.unsaved > 0 || this.#stale()) await this.save();
  }

  #stale(): boolean {
    const refresh = this.options.refreshMs;
    return refresh !== undefined && this.index.size > 0 && Date.now() - this.#savedAt >= refresh;
  }

  /** A save that fell due: after a pause between requests, if it has pauses. */
  #saveAtPause(): Promise<void> {
    if (this.#saving || !this.options.pauses) return this.save();
    this.#saving = this.options.pauses.pause(PAUSE_IDLE_MS, SAVE_WAIT_MS, this.#stopping.signal)
      .then(() => this.#save()).finally(() => (this.#saving = undefined));
    return this.#saving;
  }

  save(): Promise<void> {
    return this.#saving ??= this.#save().finally(() => (this.#saving = undefined));
  }

  async #save() {
    const started = performance.now();
    this.#savedAt = Date.now();
    try {
      await mkdir(dirname(this.file), { recursive: true, mode: 0o700 });
      await this.index.save(this.file, this.instance);
      this.log.info(`${this.#name} snapshot saved`, {
        [this.options.unit]: this.index.size,
        ms: Math.round(performance.now() - started),
      });
    } catch (err) {
      this.log.warn(`${this.#name} snapshot not saved; the next start reads the database instead`, { err });
    }
  }
}
