/**
 * Notices edits made to the vault's files while the server runs (an editor, `git pull`, a sync
 * tool) and reports them as `{userId, path, kind}` so the index, search and live events follow.
 *
 * One recursive `node:fs` watch on `<dataDir>/users` (inotify on Linux, FSEvents on macOS; it
 * behaves the same under Deno, Bun and Node, and needs no dependency). Events for a path are
 * debounced (an editor's save is several events), then handed to `NoteStore.applyDiskChange`,
 * which re-reads the file, drops echoes of the store's own writes by content hash, walks folders
 * that appeared and forgets folders that vanished. Hidden names (`.trash`, temp files of atomic
 * writes, `.obsidian`) are ignored.
 *
 * @example
 * const watcher = watchVault(store, { onChange: (c) => events.publish(c.userId, c) });
 * // ... on shutdown
 * await watcher.close();
 */
import { type FSWatcher, watch } from "node:fs";
import { mkdir } from "node:fs/promises";
import type { NoteStore } from "./note_store.ts";
import type { NoteChange } from "./note_types.ts";

export interface VaultWatcherOptions {
  /** Quiet time per path before it is re-read (default 75 ms). */
  debounceMs?: number;
  onChange?: (change: NoteChange) => void;
  /** A failure to read a changed file or of the watch itself (default: ignored). */
  onError?: (err: unknown) => void;
}

export interface VaultWatcher {
  /** Settles once the watch is in place. */
  ready: Promise<void>;
  /** Stops watching and waits for changes already being read. */
  close(): Promise<void>;
}

export function watchVault(store: NoteStore, opts: VaultWatcherOptions = {}): VaultWatcher {
  const debounceMs = opts.debounceMs ?? 75;
  const timers = new Map<string, ReturnType<typeof setTimeout>>();
  const inFlight = new Set<Promise<void>>();
  let fsw: FSWatcher | undefined;
  let closed = false;

  const fire = (userId: string, path: string) => {
    const p = store.applyDiskChange(userId, path).then(
      (changes) => {
        for (const c of changes) opts.onChange?.(c);
      },
      (err) => opts.onError?.(err),
    ).finally(() => inFlight.delete(p));
    inFlight.add(p);
  };

  const onEvent = (_event: string, filename: string | Buffer | null) => {
    if (closed || filename === null) return;
    const rel = String(filename).replaceAll("\\", "/");
    const slash = rel.indexOf("/");
    if (slash <= 0) return; // the users folder itself or a user's folder: files inside report themselves
    const userId = rel.slice(0, slash);
    const path = rel.slice(slash + 1);
    if (path.split("/").some((s) => s.startsWith("."))) return;
    const key = `${userId}\0${path}`;
    clearTimeout(timers.get(key));
    timers.set(
      key,
      setTimeout(() => {
        timers.delete(key);
        if (!closed) fire(userId, path);
      }, debounceMs),
    );
  };

  const ready = (async () => {
    await mkdir(store.usersDir, { recursive: true });
    if (closed) return;
    fsw = watch(store.usersDir, { recursive: true }, onEvent);
    fsw.on("error", (err) => opts.onError?.(err));
  })();

  return {
    ready,
    async close() {
      closed = true;
      await ready.catch(() => {});
      fsw?.close();
      for (const t of timers.values()) clearTimeout(t);
      timers.clear();
      await Promise.allSettled([...inFlight]);
    },
  };
}
