/**
 * The live event channel's hub: the open /ws/vault sockets of this process by user, and the way
 * note changes become events for the owner and for every user a share covering the path was given
 * to. On PostgreSQL, changes made through this process are also announced to the other replicas
 * (replica_bus.ts), so sockets see changes made through any replica.
 *
 * One event per change, whichever way a replica hears of it first. A replica sharing the notes folder
 * also sees another's write on disk, and the disk cannot say who wrote (its event has no client id):
 * - the writer announces before it delivers to its own sockets (whose share lookups may be slow);
 * - a change seen on disk waits up to `diskHoldMs` for a replica's announcement of the same file state
 *   (path and content version, or deleted); when one comes, the announcement is told and the disk's
 *   sighting dropped, so the event names the writer's client or agent;
 * - a file state told lately (`ECHO_MS`) is not told again: a sighting on disk after the announcement
 *   is dropped, and so is an announcement after the wait ran out and the disk's sighting was told.
 * On the embedded database there is one process: nothing waits.
 */
import type { Kysely } from "kysely";
import type { Logger } from "../../../internal/log/mod.ts";
import type { ServerSocket } from "../../../internal/platform/mod.ts";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { sleep } from "../../../internal/async/sleep.ts";
import { type NoteChange, type NoteStore, parseNote } from "../notes/mod.ts";
import { covers, sharesGiven, sharesReceived } from "../sharing/shares.ts";
import { tagsByPath } from "../search/mod.ts";
import type { VaultDatabase } from "../store/db.ts";
import { currentActor } from "./actor.ts";
import { Channel } from "./channel.ts";
import { eventOf, pathsOf, type VaultEvent } from "./events.ts";
import type { ReplicaBus } from "./replica_bus.ts";

export const NOTIFY_CHANNEL = "vault_events";
/** How long a told file state is remembered, to drop its echo from the other side. */
const ECHO_MS = 5_000;
/**
 * How long a change seen on disk waits for a replica's announcement: longer than an announcement takes
 * on a busy server (measured: 50 concurrent creates on a loaded 2-core machine delayed some by over 1 s),
 * short enough for an edit made in an editor behind the vault's back.
 */
const DISK_HOLD_MS = 2_000;

/** A file's state after a change: its content version, or null when it is gone. */
interface FileState {
  path: string;
  version: string | null;
}

interface Announcement {
  origin: string;
  event: VaultEvent;
  states: FileState[];
}

export interface LiveHubOptions {
  db: Kysely<VaultDatabase>;
  store: NoteStore;
  log: Logger;
  /** The other replicas on the same PostgreSQL. Without one, events stay in this process. */
  bus?: ReplicaBus;
  heartbeatMs: number;
  maxBufferedBytes: number;
  /** How long a change seen on disk waits for another replica's announcement of it. Default 2000. */
  diskHoldMs?: number;
  /** Resolves once the search index has taken every change of `owner` reported so far (IndexSync.settled). */
  settled?: (owner: string) => Promise<void>;
  /** For tests only (VAULT_TEST_ANNOUNCE_DELAY_MS): announce this process's changes this much later. */
  announceDelayMs?: number;
}

export class LiveHub {
  readonly #channels = new Map<string, Set<Channel>>();
  /** ownerId\0path\0version -> when that file state was told to sockets, and whether a replica announced it. */
  readonly #told = new Map<string, { at: number; announced: boolean }>();
  /** ownerId\0path\0version -> a change seen on disk, waiting for an announcement of that state. */
  readonly #held = new Map<string, () => void>();
  /**
   * ownerId -> path -> tags, for the owners whose notes some socket here watches (loaded when the
   * socket opens), so a change can be told as tag.added / tag.removed. Dropped when no socket is left.
   */
  readonly #tags = new Map<string, Promise<Map<string, Set<string>>>>();
  /** Per owner, the last delivery handed over: the next one starts after it. */
  readonly #delivering = new Map<string, Promise<void>>();

  constructor(private readonly o: LiveHubOptions) {}

  async start(): Promise<void> {
    await this.o.bus?.subscribe(NOTIFY_CHANNEL, (payload) => this.#fromReplica(payload));
  }

  close(): void {
    for (const set of this.#channels.values()) {
      for (const ch of [...set]) ch.close(1001, "server shutting down");
    }
    for (const drop of [...this.#held.values()]) drop();
  }

  /** Registers an accepted socket of `userId`; `onClose` runs once it is closed, by either side. */
  attach(userId: string, socket: ServerSocket, onClose?: () => void): Channel {
    const channel = new Channel(userId, socket, {
      heartbeatMs: this.o.heartbeatMs,
      maxBufferedBytes: this.o.maxBufferedBytes,
      onClose: (ch) => {
        onClose?.();
        const set = this.#channels.get(ch.userId);
        set?.delete(ch);
        if (set?.size === 0) this.#channels.delete(ch.userId);
        if (this.#channels.size === 0) this.#tags.clear();
      },
    });
    let set = this.#channels.get(userId);
    if (!set) this.#channels.set(userId, set = new Set());
    set.add(channel);
    void this.#watchTags(userId).catch((err) => this.o.log.warn("tags not loaded", { err }));
    return channel;
  }

  async #watchTags(userId: string): Promise<void> {
    const owners = [userId, ...(await sharesReceived(this.o.db, userId)).map((s) => s.ownerId)];
    for (const owner of new Set(owners)) {
      if (this.#tags.has(owner)) continue;
      this.#tags.set(owner, this.#loadTags(owner));
    }
  }

  /**
   * The owner's tags by path as the index has them once it has taken every change reported so far
   * (what the notes library's in-memory index gave before, without holding every note's parse).
   */
  async #loadTags(owner: string): Promise<Map<string, Set<string>>> {
    await this.o.settled?.(owner);
    const byPath = new Map<string, Set<string>>();
    for (const [path, tags] of await tagsByPath(this.o.db, owner)) byPath.set(path, new Set(tags));
    return byPath;
  }

  /** The tag events a note event implies, against the owner's known tags (none when not watched). */
  async #tagEvents(event: VaultEvent): Promise<VaultEvent[]> {
    const known = await this.#tags.get(event.ownerId);
    if (!known || event.kind.startsWith("folder.")) return [];
    if (event.kind === "note.renamed" || event.kind === "note.moved") {
      const e = event as { from: string; to: string };
      const tags = known.get(e.from);
      known.delete(e.from);
      if (tags) known.set(e.to, tags);
      return [];
    }
    const path = (event as { path: string }).path;
    const before = known.get(path) ?? new Set<string>();
    let after = new Set<string>();
    if (event.kind !== "note.deleted") {
      try {
        const text = await readFile(join(await this.o.store.userRoot(event.ownerId), path), "utf8");
        after = new Set(parseNote(path, text).tags);
      } catch {
        // gone again, or not a note: no tags
      }
    }
    if (after.size) known.set(path, after);
    else known.delete(path);
    const { ownerId, clientId, agentId, agentName } = event;
    const who = { ownerId, clientId, agentId, agentName };
    return [
      ...[...after].filter((t) => !before.has(t)).map((tag) => ({
        kind: "tag.added" as const,
        tag,
        path,
        ...who,
      })),
      ...[...before].filter((t) => !after.has(t)).map((tag) => ({
        kind: "tag.removed" as const,
        tag,
        path,
        ...who,
      })),
    ];
  }

  count(): number {
    let n = 0;
    for (const set of this.#channels.values()) n += set.size;
    return n;
  }

  /** A change from the note store or the watcher (runs in the writer's context: names its actor). */
  handle(change: NoteChange): void {
    // Nobody to tell here, and no replica to tell (an event costs a stat of the file).
    if (!this.o.bus && this.#channels.size === 0) return;
    const actor = currentActor();
    // The file states now, before a later write replaces them (folders have none: never echoed).
    const states: FileState[] = change.folder ? [] : [
      ...(change.kind === "renamed" && change.from ? [{ path: change.from, version: null }] : []),
      { path: change.path, version: this.o.store.versionOf(change.userId, change.path) ?? null },
    ];
    void (async () => {
      const event = await eventOf(this.o.store, change, actor);
      const bus = this.o.bus;
      if (!bus) return await this.#deliver(event);
      if (change.source === "store") {
        this.#remember(event.ownerId, states, false);
        // Announced first: the other replicas must not wait for this one's share lookups.
        await Promise.all([this.#announce(bus, { origin: bus.origin, event, states }), this.#deliver(event)]);
        return;
      }
      if (this.#toldAlready(event.ownerId, states)) return;
      if (!(await this.#awaitAnnouncement(event.ownerId, states[0]!))) return;
      this.#remember(event.ownerId, states, false);
      await this.#deliver(event);
    })().catch((err) => this.o.log.warn("live event not delivered", { err }));
  }

  async #announce(bus: ReplicaBus, announcement: Announcement): Promise<void> {
    if (this.o.announceDelayMs) await sleep(this.o.announceDelayMs);
    await bus.publish(NOTIFY_CHANNEL, JSON.stringify(announcement));
  }

  /**
   * Sends an owner's events in the order they were handed over: each waits for the one before, since
   * their share lookups are queries that may finish in any order (a grantee was told of a note's deletion
   * before its creation).
   */
  #deliver(event: VaultEvent): Promise<void> {
    const owner = event.ownerId;
    const sent = (this.#delivering.get(owner) ?? Promise.resolve()).then(() => this.#send(event));
    const tail = sent.catch(() => {}).finally(() => {
      if (this.#delivering.get(owner) === tail) this.#delivering.delete(owner);
    });
    this.#delivering.set(owner, tail);
    return sent;
  }

  async #send(event: VaultEvent): Promise<void> {
    if (this.#channels.size === 0) return;
    const events = [event, ...(await this.#tagEvents(event))];
    const send = (userId: string) => {
      for (const ch of this.#channels.get(userId) ?? []) for (const e of events) ch.send(e);
    };
    send(event.ownerId);
    // Users a share covering the path was given to (paths of a rename: either side).
    const paths = pathsOf(event);
    const grantees = new Set<string>();
    for (const s of await sharesGiven(this.o.db, event.ownerId)) {
      if (this.#channels.has(s.granteeId) && paths.some((p) => covers(s.path, p))) grantees.add(s.granteeId);
    }
    for (const g of grantees) send(g);
  }

  #fromReplica(payload: string): void {
    let parsed: Partial<Announcement>;
    try {
      parsed = JSON.parse(payload);
    } catch {
      return;
    }
    const { event, states = [] } = parsed;
    if (!event || parsed.origin === this.o.bus?.origin) return;
    // A sighting on disk of the same state gives way to the announcement, which names the writer.
    for (const s of states) this.#held.get(stateKey(event.ownerId, s))?.();
    // Told already from the disk after the wait ran out: once is enough.
    if (states.length > 0 && this.#toldAlready(event.ownerId, states, false)) return;
    this.#remember(event.ownerId, states, true);
    void this.#deliver(event).catch((err) => this.o.log.warn("live event not delivered", { err }));
  }

  /** Whether every state was told lately (by an announcement, or by a disk sighting when `announced` is false). */
  #toldAlready(ownerId: string, states: FileState[], announced?: boolean): boolean {
    const now = Date.now();
    return states.every((s) => {
      const told = this.#told.get(stateKey(ownerId, s));
      return told !== undefined && now - told.at <= ECHO_MS &&
        (announced === undefined || told.announced === announced);
    });
  }

  #remember(ownerId: string, states: FileState[], announced: boolean): void {
    const now = Date.now();
    for (const [k, told] of this.#told) {
      if (now - told.at <= ECHO_MS) break; // oldest first: the rest are newer
      this.#told.delete(k);
    }
    for (const s of states) {
      const k = stateKey(ownerId, s);
      this.#told.delete(k); // re-inserted last, keeping the map in time order
      this.#told.set(k, { at: now, announced });
    }
  }

  /** Waits for a replica to announce `state`: false when one did (drop the sighting), true after the wait. */
  #awaitAnnouncement(ownerId: string, state: FileState): Promise<boolean> {
    const k = stateKey(ownerId, state);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#held.delete(k);
        resolve(true);
      }, this.o.diskHoldMs ?? DISK_HOLD_MS);
      this.#held.get(k)?.(); // an older sighting of the very same state: this one stands for both
      this.#held.set(k, () => {
        clearTimeout(timer);
        this.#held.delete(k);
        resolve(false);
      });
    });
  }
}

const stateKey = (ownerId: string, s: FileState) => `${ownerId}\0${s.path}\0${s.version}`;
