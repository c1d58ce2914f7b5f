/**
 * Keeps the search index (server/vault/search) in step with the note files, following
 * docs/vault-search.md "Keeping the index current": every change the NoteStore reports (its own
 * writes and edits the watcher saw on disk) is applied per user, in order, on one queue; searches,
 * backlinks and the graph wait for the caller's queue first (`settled`), so a note written through
 * the API is found by the next request. At start `reconcile` compares `indexedVersions` with the
 * files and indexes what changed while the server was down.
 */
import { readdir } from "node:fs/promises";
import type { Kysely } from "kysely";
import type { Logger } from "../../../internal/log/mod.ts";
import { frontMatterEnd } from "../notes/mask_code.ts";
import {
  entryKind,
  type NoteChange,
  NoteError,
  type NoteStore,
  parseNote,
  PathSet,
  resolveLink,
} from "../notes/mod.ts";
import {
  indexedVersions,
  type NoteDocument,
  removeFolder,
  removeNote,
  renameFolder,
  renameNote,
  type SearchTables,
  upsertNote,
  upsertNotes,
} from "../search/mod.ts";

export class IndexSync {
  readonly #queues = new Map<string, Promise<void>>();

  constructor(
    readonly db: Kysely<SearchTables>,
    readonly store: NoteStore,
    readonly log?: Logger,
  ) {}

  /** Queues a change for the user's index; failures are logged, never thrown at the writer. */
  handle(change: NoteChange): void {
    this.#enqueue(change.userId, () => this.#apply(change));
  }

  /** Resolves once every change queued so far for `userId` is in the index. */
  async settled(userId: string): Promise<void> {
    await this.#queues.get(userId);
  }

  #enqueue(userId: string, task: () => Promise<void>): Promise<void> {
    const next = (this.#queues.get(userId) ?? Promise.resolve()).then(task).catch((err) => {
      this.log?.error("search index update failed", { err, userId });
    });
    this.#queues.set(userId, next);
    void next.then(() => {
      if (this.#queues.get(userId) === next) this.#queues.delete(userId);
    });
    return next;
  }

  async #apply(change: NoteChange): Promise<void> {
    const { userId, path } = change;
    if (change.kind === "renamed") {
      if (change.folder) await renameFolder(this.db, userId, change.from!, path);
      else if (entryKind(path) === "note") {
        await renameNote(this.db, userId, change.from!, path);
        await this.#index(userId, path);
      }
      return;
    }
    if (change.kind === "deleted") {
      if (change.folder) await removeFolder(this.db, userId, path);
      else await removeNote(this.db, userId, path);
      return;
    }
    if (change.folder || entryKind(path) !== "note") return;
    await this.#index(userId, path);
    if (change.kind === "created") {
      // Links written before this note existed were stored as their text; resolve them now.
      const idx = await this.store.index(userId);
      for (const b of idx.backlinks(path)) if (b.source !== path) await this.#index(userId, b.source);
    }
  }

  async #index(userId: string, path: string): Promise<void> {
    const doc = await this.document(userId, path);
    if (doc) await upsertNote(this.db, userId, doc);
    else await removeNote(this.db, userId, path);
  }

  /** The index document of a note as it is on disk now; undefined when it is gone. */
  async document(userId: string, path: string, files?: PathSet): Promise<NoteDocument | undefined> {
    let note;
    try {
      note = await this.store.read(userId, path);
    } catch (err) {
      if (err instanceof NoteError && (err.code === "not_found" || err.code === "not_a_note")) {
        return undefined;
      }
      throw err;
    }
    const parsed = parseNote(note.path, note.content);
    const known = files ?? (await this.store.index(userId)).files;
    const links = parsed.links.map((link) => ({
      target: resolveLink(link, note.path, known) ?? link.target,
      kind: link.embed ? "embed" as const : link.kind,
    }));
    return {
      path: note.path,
      title: parsed.title,
      tags: parsed.tags,
      body: note.content.slice(frontMatterEnd(note.content)),
      contentHash: note.version,
      mtime: note.mtime,
      size: note.size,
      links: dedupe(links),
    };
  }

  /** Brings one user's index up to date with the files (new, changed and removed notes). */
  reconcileUser(userId: string): Promise<void> {
    return this.#enqueue(userId, async () => {
      const indexed = await indexedVersions(this.db, userId);
      const idx = await this.store.index(userId);
      const tree = await this.store.tree(userId, { stats: true });
      const changed: NoteDocument[] = [];
      const onDisk = new Set<string>();
      for (const e of tree) {
        if (e.kind !== "note") continue;
        onDisk.add(e.path);
        const known = indexed.get(e.path);
        if (known && known.size === e.size && known.mtime.getTime() === e.mtime.getTime()) continue;
        const doc = await this.document(userId, e.path, idx.files);
        if (doc && doc.contentHash !== known?.contentHash) changed.push(doc);
      }
      if (changed.length) await upsertNotes(this.db, userId, changed);
      for (const path of indexed.keys()) if (!onDisk.has(path)) await removeNote(this.db, userId, path);
      if (changed.length) this.log?.info("search index caught up", { userId, notes: changed.length });
    });
  }

  /**
   * Reconciles every user directory under the store's data directory (at start). Every user's catch-up
   * is queued at once, so a search waits for its own user's catch-up only, never for everyone's.
   */
  async reconcileAll(): Promise<void> {
    const users = await readdir(this.store.usersDir).catch(() => [] as string[]);
    await Promise.all(users.filter((u) => !u.startsWith(".")).map((u) => this.reconcileUser(u)));
  }
}

function dedupe<T extends { target: string; kind: string }>(links: T[]): T[] {
  const seen = new Set<string>();
  return links.filter((l) => {
    const key = `${l.kind}\0${l.target}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
