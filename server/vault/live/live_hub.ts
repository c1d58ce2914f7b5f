/**
 * The live event channel's hub: the open /ws/vault sockets of this process by user, and the way
 * note changes become events for the owner and for every user a share covering the path was given
 * to. On PostgreSQL, changes made through this process are also published with NOTIFY, and every
 * process LISTENs, so sockets see changes made through any replica. A change another replica already
 * announced is not announced again when this process's file watcher sees it on disk (shared notes
 * folder on one host) within a few seconds.
 */
import type { Kysely } from "kysely";
import { sql } from "kysely";
import postgres from "postgres";
import type { Logger } from "../../../internal/log/mod.ts";
import type { ServerSocket } from "../../../internal/platform/mod.ts";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { type NoteChange, type NoteStore, parseNote } from "../notes/mod.ts";
import { covers, sharesGiven, sharesReceived } from "../sharing/shares.ts";
import type { VaultDatabase } from "../store/db.ts";
import { currentActor } from "./actor.ts";
import { Channel } from "./channel.ts";
import { eventOf, pathsOf, type VaultEvent } from "./events.ts";

export const NOTIFY_CHANNEL = "vault_events";
const REMOTE_ECHO_MS = 5_000;

export interface LiveHubOptions {
  db: Kysely<VaultDatabase>;
  store: NoteStore;
  log: Logger;
  /** A PostgreSQL url: publish and LISTEN across processes. Without one, events stay in this process. */
  postgresUrl?: string;
  heartbeatMs: number;
  maxBufferedBytes: number;
}

export class LiveHub {
  readonly #channels = new Map<string, Set<Channel>>();
  readonly #origin = crypto.randomUUID();
  /** ownerId\0kind\0path of events other replicas announced lately, to skip their echo on disk. */
  readonly #remote = new Map<string, number>();
  #listener: postgres.Sql | undefined;
  /**
   * ownerId -> path -> tags, for the owners whose notes some socket here watches (loaded when the
   * socket opens), so a change can be told as tag.added / tag.removed. Dropped when no socket is left.
   */
  readonly #tags = new Map<string, Promise<Map<string, Set<string>>>>();

  constructor(private readonly o: LiveHubOptions) {}

  async start(): Promise<void> {
    if (!this.o.postgresUrl) return;
    this.#listener = postgres(this.o.postgresUrl, { max: 1, onnotice: () => {} });
    await this.#listener.listen(NOTIFY_CHANNEL, (payload) => this.#fromReplica(payload));
  }

  async close(): Promise<void> {
    for (const set of this.#channels.values()) {
      for (const ch of [...set]) ch.close(1001, "server shutting down");
    }
    await this.#listener?.end({ timeout: 2 });
  }

  /** Registers an accepted socket of `userId`. */
  attach(userId: string, socket: ServerSocket, stillAllowed?: () => Promise<boolean>): Channel {
    const channel = new Channel(userId, socket, {
      stillAllowed,
      heartbeatMs: this.o.heartbeatMs,
      maxBufferedBytes: this.o.maxBufferedBytes,
      onClose: (ch) => {
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
      this.#tags.set(
        owner,
        this.o.store.index(owner).then((index) => {
          const byPath = new Map<string, Set<string>>();
          for (const [path, note] of index.notes()) byPath.set(path, new Set(note.tags));
          return byPath;
        }),
      );
    }
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
    const actor = currentActor();
    void (async () => {
      const event = await eventOf(this.o.store, change, actor);
      if (change.source === "disk" && this.#seenFromReplica(event)) return;
      await this.#deliver(event);
      if (this.#listener && change.source === "store") {
        const payload = JSON.stringify({ origin: this.#origin, event });
        await sql`select pg_notify(${NOTIFY_CHANNEL}, ${payload})`.execute(this.o.db);
      }
    })().catch((err) => this.o.log.warn("live event not delivered", { err }));
  }

  async #deliver(event: VaultEvent): Promise<void> {
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
    let parsed: { origin?: string; event?: VaultEvent };
    try {
      parsed = JSON.parse(payload);
    } catch {
      return;
    }
    if (!parsed.event || parsed.origin === this.#origin) return;
    const now = Date.now();
    for (const [k, at] of this.#remote) if (now - at > REMOTE_ECHO_MS) this.#remote.delete(k);
    for (const p of pathsOf(parsed.event)) this.#remote.set(echoKey(parsed.event, p), now);
    void this.#deliver(parsed.event).catch((err) => this.o.log.warn("live event not delivered", { err }));
  }

  #seenFromReplica(event: VaultEvent): boolean {
    const at = this.#remote.get(echoKey(event, pathsOf(event).at(-1)!));
    return at !== undefined && Date.now() - at <= REMOTE_ECHO_MS;
  }
}

/** Disk echoes cannot tell created from updated, nor a rename from delete-and-create: key on the path. */
const echoKey = (e: VaultEvent, path: string) => `${e.ownerId}\0${path}`;
