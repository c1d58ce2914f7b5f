/**
 * Keeps the search index and the link graph (server/vault/search) in step with the files,
 * following docs/vault-search.md "Keeping the index current": every change the NoteStore reports
 * (its own writes and edits the watcher saw on disk) is applied per user, in order, on one queue;
 * searches, backlinks and the graph wait for the caller's queue first (`settled`), so a note written
 * through the API is found by the next request. At start `reconcile` compares what is indexed with
 * the files and indexes what changed while the server was down, through the same functions: links
 * are resolved by the database against every file it knows (search/link_targets.ts), so the order
 * in which notes arrive never changes where their links point.
 *
 * Changes that arrive while the queue is busy are applied together, as one batch: each path once,
 * as the disk says it is then, the notes of the batch written in one transaction (upsertNotes). One
 * transaction per note had bounded creation at about 100 notes/s on the embedded database with 8
 * clients writing (docs/benchmarks.md, issue 38). A batch costs about the same for 1 note as for 10
 * (the transaction, the link lock, links resolved against the whole vault), so while changes stream
 * in (the last batch ended moments ago) a new batch waits up to GATHER_MS for more to join it; a
 * search, or any other work queued for the user, starts it at once, so nothing a request waits for
 * is delayed, and a lone change is applied at once.
 */
import { readdir } from "node:fs/promises";
import type { Kysely } from "kysely";
import type { Logger } from "../../../internal/log/mod.ts";
import { collectWhenGrown } from "../../../internal/platform/mod.ts";
import { frontMatterEnd } from "../notes/mask_code.ts";
import { entryKind, linkSpec, type NoteChange, NoteError, type NoteStore, parseNote } from "../notes/mod.ts";
import { mapLimit } from "../notes/walk_vault.ts";
import {
  addFiles,
  analyzeSearchIndex,
  indexedFiles,
  indexedVersions,
  type NoteDocument,
  type NoteLink,
  removeNote,
  removeNotes,
  type SearchTables,
  upsertNote,
  upsertNotes,
} from "../search/mod.ts";

/** Changes applied as one batch at most (their notes' text is held until the batch is written). */
const MAX_BATCH = 250;
/**
 * How long a batch waits for company while changes stream in (default of `gatherMs`): 8 clients
 * creating notes bring a create batch (create_batch.ts) every 20–30 ms, and each index batch took
 * one of them (~5 notes).
 */
const GATHER_MS = 60;
/** Files of a batch read at the same time. */
const READ_AHEAD = 8;
/** Notes of a catch-up written together (one transaction). */
const CATCH_UP_BATCH = 250;
/** A catch-up of this many changed notes or more refreshes the planner's statistics (upsertNotes' rule). */
const ANALYZE_AFTER = 100;
/** During a catch-up, a full collection once RSS has grown this much (internal/platform/garbage.ts). */
const CATCH_UP_GARBAGE_BYTES = 48 * 1024 * 1024;

export class IndexSync {
  readonly #queues = new Map<string, Promise<void>>();
  /** Changes reported and not yet taken by a batch, per user. */
  readonly #pending = new Map<string, NoteChange[]>();
  /** Per user, the batch waiting for company (not queued yet): its timer, and what queues it. */
  readonly #gathering = new Map<string, { timer: ReturnType<typeof setTimeout>; start: () => void }>();
  /** Per user, when its last batch ended (performance.now()). */
  readonly #lastBatch = new Map<string, number>();

  readonly #gatherMs: number;

  constructor(
    readonly db: Kysely<SearchTables>,
    readonly store: NoteStore,
    readonly log?: Logger,
    options: { gatherMs?: number } = {},
  ) {
    this.#gatherMs = options.gatherMs ?? GATHER_MS;
  }

  /** Queues a change for the user's index; failures are logged, never thrown at the writer. */
  handle(change: NoteChange): void {
    const { userId } = change;
    const waiting = this.#pending.get(userId);
    if (waiting) {
      // A batch is queued (or gathering) and has not started: this change joins it.
      waiting.push(change);
      if (waiting.length >= MAX_BATCH) this.#startGathered(userId);
      return;
    }
    const batch = [change];
    this.#pending.set(userId, batch);
    const start = () => {
      this.#gathering.delete(userId);
      this.#enqueue(userId, async () => {
        if (this.#pending.get(userId) === batch) this.#pending.delete(userId);
        try {
          for (let i = 0; i < batch.length; i += MAX_BATCH) {
            await this.#applyAll(batch.slice(i, i + MAX_BATCH));
          }
        } finally {
          this.#lastBatch.set(userId, performance.now());
        }
      });
    };
    // A busy queue gathers the batch while it waits; an idle one waits only while changes stream in.
    const streaming = performance.now() - (this.#lastBatch.get(userId) ?? -Infinity) < this.#gatherMs;
    if (this.#queues.has(userId) || !streaming) start();
    else this.#gathering.set(userId, { timer: setTimeout(start, this.#gatherMs), start });
  }

  /** Resolves once every change reported so far for `userId` is in the index. */
  async settled(userId: string): Promise<void> {
    this.#startGathered(userId);
    await this.#queues.get(userId);
  }

  /** Queues the user's gathering batch now (a request waits for it, or other work follows it). */
  #startGathered(userId: string): void {
    const gathering = this.#gathering.get(userId);
    if (!gathering) return;
    clearTimeout(gathering.timer);
    gathering.start();
  }

  #enqueue(userId: string, task: () => Promise<void>): Promise<void> {
    this.#startGathered(userId); // what was reported first is applied first
    const next = (this.#queues.get(userId) ?? Promise.resolve()).then(task).catch((err) => {
      this.log?.error("search index update failed", { err, userId });
    });
    this.#queues.set(userId, next);
    void next.then(() => {
      if (this.#queues.get(userId) === next) this.#queues.delete(userId);
    });
    return next;
  }

  /**
   * A batch of changes, each path brought to what the disk says now (see #apply). When the batch
   * fails as a whole, each change is applied alone, so one bad change costs only itself.
   */
  async #applyAll(changes: readonly NoteChange[]): Promise<void> {
    if (changes.length === 1) return await this.#apply(changes[0]!);
    const paths = new Map<string, string[]>();
    const reconciles: { userId: string; under: string }[] = [];
    for (const c of changes) {
      for (const step of steps(c)) {
        if (step.reconcile) reconciles.push({ userId: c.userId, under: step.path });
        else paths.set(c.userId, [...(paths.get(c.userId) ?? []), step.path]);
      }
    }
    try {
      for (const [userId, list] of paths) await this.#syncAll(userId, [...new Set(list)]);
      for (const r of reconciles) await this.#reconcile(r.userId, r.under);
    } catch (err) {
      this.log?.warn("search index batch failed; applying its changes one by one", {
        err,
        changes: changes.length,
      });
      for (const c of changes) {
        await this.#apply(c).catch((e) =>
          this.log?.error("search index update failed", { err: e, userId: c.userId })
        );
      }
    }
  }

  /**
   * Every change is applied as "make the index say what the disk says now" at the paths it names,
   * never as a step relative to what the index held (a move of whatever was recorded at `from`):
   * replicas sharing a database apply each other's changes in no set order, and a relative step
   * applied late moves rows that are no longer there, or that came back since.
   */
  async #apply(change: NoteChange): Promise<void> {
    for (const step of steps(change)) {
      if (step.reconcile) await this.#reconcile(change.userId, step.path);
      else await this.#sync(change.userId, step.path);
    }
  }

  /** One path as it is on disk now: a note indexed, another file recorded, nothing removed. */
  async #sync(userId: string, path: string): Promise<void> {
    if (entryKind(path) === "note") await this.#index(userId, path);
    else if (await this.store.isFile(userId, path)) await addFiles(this.db, userId, [path]);
    else await removeNote(this.db, userId, path);
  }

  /** #sync of many paths, each kind of write in one statement: the notes' text in one transaction. */
  async #syncAll(userId: string, paths: readonly string[]): Promise<void> {
    // Read from disk a few at a time (one after another, a batch's reads took longer than its write).
    const found = new Array<NoteDocument | "file" | undefined>(paths.length);
    await mapLimit([...paths.keys()], READ_AHEAD, async (i) => {
      const path = paths[i]!;
      if (entryKind(path) === "note") found[i] = await this.document(userId, path);
      else if (await this.store.isFile(userId, path)) found[i] = "file";
    });
    const gone = paths.filter((_, i) => found[i] === undefined);
    const files = paths.filter((_, i) => found[i] === "file");
    const docs = found.filter((f): f is NoteDocument => f !== undefined && f !== "file");
    await removeNotes(this.db, userId, gone);
    if (files.length) await addFiles(this.db, userId, files);
    // A note whose text is indexed already has only its size and time refreshed (upsertNote).
    const known = await indexedVersions(this.db, userId, docs.map((d) => d.path));
    const same = docs.filter((d) => known.get(d.path)?.contentHash === d.contentHash);
    for (const doc of same) await upsertNote(this.db, userId, doc);
    const changed = docs.filter((d) => known.get(d.path)?.contentHash !== d.contentHash);
    if (changed.length) await upsertNotes(this.db, userId, changed, { analyze: false });
  }

  async #index(userId: string, path: string): Promise<void> {
    const doc = await this.document(userId, path);
    if (doc) await upsertNote(this.db, userId, doc);
    else await removeNote(this.db, userId, path);
  }

  /**
   * Indexes files an import wrote (NoteStore.importFiles reports them to nobody): all of them
   * recorded first, then the notes whose text is not indexed yet, in batches (`last`: the import's
   * last batch, after which the planner's statistics are refreshed). On the user's queue,
   * like every other change; unlike them, a failure is thrown at the importer.
   */
  indexImported(
    userId: string,
    files: readonly {
      path: string;
      kind: string;
      text?: string;
      version: string;
      mtime: Date;
      size: number;
    }[],
    options: { last?: boolean } = {},
  ): Promise<void> {
    let failure: unknown;
    const done = this.#enqueue(userId, async () => {
      try {
        await addFiles(this.db, userId, files.map((f) => f.path));
        const notes = files.filter((f) => f.kind === "note" && f.text !== undefined);
        const known = await indexedVersions(this.db, userId, notes.map((n) => n.path));
        const docs = notes.filter((n) => known.get(n.path)?.contentHash !== n.version)
          .map((n) => noteDocument({ ...n, content: n.text! }));
        // The planner's statistics once, after the last batch, not after every one.
        if (docs.length || options.last) {
          await upsertNotes(this.db, userId, docs, { analyze: options.last ?? false });
        }
      } catch (err) {
        failure = err;
        throw err;
      }
    });
    return done.then(() => {
      if (failure) throw failure;
    });
  }

  /** The index document of a note as it is on disk now; undefined when it is gone. */
  async document(userId: string, path: string): Promise<NoteDocument | undefined> {
    let note;
    try {
      note = await this.store.read(userId, path);
    } catch (err) {
      if (err instanceof NoteError && (err.code === "not_found" || err.code === "not_a_note")) {
        return undefined;
      }
      throw err;
    }
    return noteDocument(note);
  }

  /** Brings one user's index up to date with the files (new, changed and removed files and notes). */
  reconcileUser(userId: string): Promise<void> {
    return this.#enqueue(userId, () => this.#reconcile(userId));
  }

  /**
   * The index of the user's files (below folder `under`, or all) made equal to the disk: the start's
   * catch-up, and a folder that moved or went. Gone first, then every file there is, then the notes'
   * text and links: a link resolves against all the files at once, whichever note is indexed first.
   */
  async #reconcile(userId: string, under?: string): Promise<void> {
    const tree = await this.store.tree(userId, { stats: true, under, fresh: true });
    const files = tree.filter((e) => e.kind !== "folder");
    const onDisk = new Set(files.map((e) => e.path));
    const recorded = await indexedFiles(this.db, userId, under);
    const indexed = await indexedVersions(this.db, userId, undefined, under);
    const gone = [...new Set([...recorded, ...indexed.keys()])].filter((p) => !onDisk.has(p));
    await removeNotes(this.db, userId, gone);
    await addFiles(this.db, userId, files.map((e) => e.path).filter((p) => !recorded.has(p)));
    // Written a batch at a time as the files are read, not all held first (10,000 notes' text and
    // parse were 160 MB of a start's memory), with a collection when the garbage has piled up.
    const collect = collectWhenGrown({ growthBytes: CATCH_UP_GARBAGE_BYTES });
    let changed: NoteDocument[] = [];
    let written = 0;
    const flush = async () => {
      if (!changed.length) return;
      await upsertNotes(this.db, userId, changed, { analyze: false });
      written += changed.length;
      changed = [];
      collect();
    };
    for (const e of files) {
      if (e.kind !== "note") continue;
      const known = indexed.get(e.path);
      if (known && known.size === e.size && known.mtime.getTime() === e.mtime.getTime()) continue;
      const doc = await this.document(userId, e.path);
      if (doc && doc.contentHash !== known?.contentHash) changed.push(doc);
      else if (doc) await upsertNote(this.db, userId, doc); // same text: mtime and size only
      if (changed.length >= CATCH_UP_BATCH) await flush();
    }
    await flush();
    // The planner's statistics, as upsertNotes refreshes them after a large batch.
    if (written >= ANALYZE_AFTER) await analyzeSearchIndex(this.db);
    if (!under && (written || gone.length)) {
      this.log?.info("search index caught up", { userId, notes: written, removed: gone.length });
    }
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

/**
 * What applying a change takes, in order: paths brought to what the disk says (`reconcile`: a folder's
 * whole subtree, the start-up catch-up's code).
 */
function steps(change: NoteChange): { path: string; reconcile?: true }[] {
  const { path } = change;
  if (change.kind === "renamed") {
    return change.folder
      ? [{ path: change.from!, reconcile: true }, { path, reconcile: true }]
      : [{ path: change.from! }, { path }];
  }
  if (change.folder) return change.kind === "deleted" ? [{ path, reconcile: true }] : [];
  // Seen on disk, a path that is gone may have been a folder (the store cannot tell once it is
  // gone, unless its in-memory index was built): what was recorded below it goes too.
  return change.kind === "deleted" && change.source === "disk"
    ? [{ path }, { path, reconcile: true }]
    : [{ path }];
}

/** A note's index document: title, tags, the text without front matter, and its links as written. */
export function noteDocument(
  note: { path: string; content: string; version: string; mtime: Date; size: number },
): NoteDocument {
  const parsed = parseNote(note.path, note.content);
  const links: NoteLink[] = parsed.links.map((link) => ({
    ...linkSpec(link),
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
    links,
  };
}
