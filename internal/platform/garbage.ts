/**
 * Garbage collection by resident memory. Bun's collector (JavaScriptCore) sizes its next full
 * collection by the heap it counts, and that includes array buffers and WebAssembly memory that are
 * mostly idle (an embedded database's heap, an index's snapshot): memsvc at 100,000 entries let
 * garbage grow by 50–100 MB before collecting, and its RSS peaked at 400–450 MB over 600 searches.
 * A full collection whenever RSS has grown a set amount past what the last one left keeps it 30–60
 * MB lower (docs/benchmarks.md, issue 25), at the price of the collection's pause.
 *
 * Off Bun both calls do nothing: Deno (development, tests) has its own collector and no such call.
 */
import { runtime } from "./runtime.ts";

type Gc = (full: boolean) => void;

function bunGc(): Gc | undefined {
  if (runtime !== "bun") return undefined;
  return (globalThis as { Bun?: { gc?: Gc } }).Bun?.gc;
}

/** A full, synchronous collection now (after loading that left garbage behind); false off Bun. */
export function collectGarbage(): boolean {
  const gc = bunGc();
  if (!gc) return false;
  gc(true);
  return true;
}

/**
 * For long work in steps (an index built from rows, batch by batch) during which no timer runs, so
 * the guard below cannot: call the returned function between steps; it collects when RSS has grown
 * `growthBytes` past the level it was made at or the last collection left, and says whether it did.
 * Without a collector (off Bun, and no `gc` given) it does nothing.
 */
export function collectWhenGrown(
  options: { growthBytes: number; rss?: () => number; gc?: () => void },
): () => boolean {
  const bun = bunGc();
  const gc = options.gc ?? (bun && (() => bun(true)));
  if (!gc) return () => false;
  const rss = options.rss ?? (() => process.memoryUsage.rss());
  let floor = rss();
  return () => {
    const now = rss();
    if (now < floor) floor = now;
    if (now - floor <= options.growthBytes) return false;
    gc();
    floor = rss();
    return true;
  };
}

export interface GarbageGuardOptions {
  /** Collect when RSS is this many bytes above what the last collection left (default 32 MB). */
  growthBytes?: number;
  /**
   * How often RSS is read (default 250 ms): searches at 100,000 entries made garbage at up to 100
   * MB/s, so checks a second apart overshot the threshold by that much.
   */
  everyMs?: number;
  /**
   * The share of time collections may take (default 0.05): after one that took t ms the next waits
   * t / share ms at least. A full collection stops the thread (50–350 ms at 100,000 entries, more on a
   * loaded machine; an asynchronous one freed too little), and requests wait for it.
   */
  maxShare?: number;
  /**
   * Whether now is a good moment (a server: no request in flight, none for a while). When given, a
   * collection due waits for it, unless RSS has grown `urgentBytes` (default 4 × growthBytes): a full
   * collection stops the thread, and a request that meets it waits the whole pause.
   */
  ready?: () => boolean;
  urgentBytes?: number;
  /** Resident set size in bytes (default: process.memoryUsage.rss). */
  rss?: () => number;
  /** The collection (default: Bun's full collection). */
  gc?: () => void;
  /** Told after each collection: RSS before it (bytes) and how long it took (ms). */
  onCollect?: (rssBefore: number, ms: number) => void;
}

/**
 * Checks RSS every `everyMs` and collects once it has grown `growthBytes` past the level the last
 * collection left (read at the check after it), or the lowest seen since, collections have taken
 * no more than `maxShare` of the time since the last one, and `ready` says now (or growth is urgent). Returns a function that stops the checks. Without a collector (off
 * Bun, and no `gc` given) it does nothing.
 */
export function startGarbageGuard(options: GarbageGuardOptions = {}): () => void {
  const bun = bunGc();
  const gc = options.gc ?? (bun && (() => bun(true)));
  if (!gc) return () => {};
  const growth = options.growthBytes ?? 32 * 1024 * 1024;
  const share = options.maxShare ?? 0.05;
  const urgent = options.urgentBytes ?? 4 * growth;
  const rss = options.rss ?? (() => process.memoryUsage.rss());
  let floor = rss();
  let next = -Infinity;
  const timer = setInterval(() => {
    const now = rss();
    if (now < floor) floor = now;
    else if (
      now - floor > growth && performance.now() >= next &&
      (!options.ready || options.ready() || now - floor > urgent)
    ) {
      const started = performance.now();
      gc();
      const ended = performance.now();
      next = ended + (ended - started) / share;
      options.onCollect?.(now, ended - started);
      // What the collection freed goes back to the system over the next moments, not at once: the
      // next check sets the level it is measured from.
      floor = Infinity;
    }
  }, options.everyMs ?? 250);
  (timer as { unref?: () => void }).unref?.();
  return () => clearInterval(timer);
}
