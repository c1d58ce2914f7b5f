/**
 * Garbage collection by resident memory. Bun's collector (JavaScriptCore) sizes its next full
 * collection by the heap it counts, and that includes array buffers and WebAssembly memory that are
 * mostly idle (an embedded database's heap, an index's snapshot): a service holding a few hundred MB
 * of them let garbage grow by 50–80 MB before collecting. memsvc at 100,000 entries peaked at
 * 410–457 MB over 600 searches; with a full collection whenever RSS had grown past the last one's
 * by a set amount, at about 1 % more CPU, lower (docs/benchmarks.md, issue 25).
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

export interface GarbageGuardOptions {
  /** Collect when RSS is this many bytes above what the last collection left (default 24 MB). */
  growthBytes?: number;
  /** How often RSS is read (default 1 s). */
  everyMs?: number;
  /** Resident set size in bytes (default: process.memoryUsage.rss). */
  rss?: () => number;
  /** The collection (default: Bun's full collection). */
  gc?: () => void;
}

/**
 * Checks RSS every `everyMs` and collects once it has grown `growthBytes` past the level the last
 * collection left (read at the check after it), or the lowest seen since. Returns a function that stops the checks. Without a
 * collector (off Bun, and no `gc` given) it does nothing.
 */
export function startGarbageGuard(options: GarbageGuardOptions = {}): () => void {
  const bun = bunGc();
  const gc = options.gc ?? (bun && (() => bun(true)));
  if (!gc) return () => {};
  const growth = options.growthBytes ?? 24 * 1024 * 1024;
  const rss = options.rss ?? (() => process.memoryUsage.rss());
  let floor = rss();
  const timer = setInterval(() => {
    const now = rss();
    if (now < floor) floor = now;
    else if (now - floor > growth) {
      gc();
      // What the collection freed goes back to the system over the next moments, not at once: the
      // next check sets the level it is measured from.
      floor = Infinity;
    }
  }, options.everyMs ?? 1000);
  (timer as { unref?: () => void }).unref?.();
  return () => clearInterval(timer);
}
