/**
 * Collaborative editing of one note at a time (Yjs): a Y.Doc per (owner, note) with its text in the
 * Y.Text "content", loaded from the note when the first socket opens it, spoken to with y-protocols'
 * sync (message type 0) and awareness (type 1). Edits are written back to the note file after
 * `writeBackMs` without edits (and at most `maxWriteBackMs` apart); changes to the note made
 * elsewhere (the API, MCP, disk) are merged into the document, and an MCP agent's edit shows as an
 * agent presence. A socket's awareness states are the Yjs clientIDs it announced, removed when it
 * closes (not the socket's identity, which left cursors behind in the reference).
 *
 * Persistence (collab/update_log.ts): every update is appended to the database's update log before it
 * is relayed to the other editors, so an edit anyone else has seen survives a crash; the write-back also
 * compacts the log into a snapshot. An evicted or restarted document loads from snapshot + log; a note
 * without either starts from its file, inserted as Yjs client 0 so that replicas seeding the same text
 * produce the same items (no doubled text when their logs meet).
 */
import * as Y from "yjs";
// @ts-types="y-protocols/sync"
import * as sync from "y-protocols/sync.js";
// @ts-types="y-protocols/awareness"
import * as awarenessProtocol from "y-protocols/awareness.js";
// @ts-types="lib0/encoding"
import * as encoding from "lib0/encoding.js";
// @ts-types="lib0/decoding"
import * as decoding from "lib0/decoding.js";
import type { Logger } from "../../../internal/log/mod.ts";
import type { ServerSocket } from "../../../internal/platform/mod.ts";
import type { NoteChange, NoteStore } from "../notes/mod.ts";
import { type Actor, currentActor, runAs } from "../live/actor.ts";
import { mergeInto } from "./merge_text.ts";
import type { UpdateLog } from "./update_log.ts";

export const MESSAGE_SYNC = 0;
export const MESSAGE_AWARENESS = 1;

export interface CollabOptions {
  store: NoteStore;
  /** Where updates and snapshots persist. */
  updates: UpdateLog;
  log: Logger;
  writeBackMs: number;
  maxWriteBackMs: number;
  /** A document nobody has open is dropped after this long. */
  evictMs: number;
}

interface Peer {
  socket: ServerSocket & { sendBytes(bytes: Uint8Array): void };
  canWrite: boolean;
  /** The Yjs clientIDs this socket announced in awareness. */
  clientIds: Set<number>;
}

class SharedNote {
  readonly doc = new Y.Doc();
  readonly awareness: awarenessProtocol.Awareness;
  readonly peers = new Set<Peer>();
  readonly agents = new Map<string, awarenessProtocol.Awareness>();
  dirtySince: number | undefined;
  timer: ReturnType<typeof setTimeout> | undefined;
  evict: ReturnType<typeof setTimeout> | undefined;
  /** The text last written to or read from the file, to tell our own echo from an edit elsewhere. */
  fileText = "";
  /** Updates waiting for the log, each relayed once it is there. */
  readonly pending: { update: Uint8Array; origin: unknown }[] = [];
  /** The append in flight, if any. */
  appending: Promise<void> | undefined;
  /** Updates logged since the last compaction. */
  logged = 0;
  /** The note was deleted or renamed away while open: nothing more is logged or written for it. */
  gone = false;

  constructor(readonly ownerId: string, readonly path: string) {
    this.awareness = new awarenessProtocol.Awareness(this.doc);
    this.awareness.setLocalState(null);
  }

  get text(): Y.Text {
    return this.doc.getText("content");
  }
}

const key = (ownerId: string, path: string) => `${ownerId}\0${path}`;

function frame(type: number, write: (e: encoding.Encoder) => void): Uint8Array {
  const e = encoding.createEncoder();
  encoding.writeVarUint(e, type);
  write(e);
  return encoding.toUint8Array(e);
}

/** A note's first state: its text inserted by Yjs client 0, the same bytes on every replica. */
function seedState(text: string): Uint8Array {
  const doc = new Y.Doc();
  doc.clientID = 0;
  doc.getText("content").insert(0, text);
  const state = Y.encodeStateAsUpdate(doc);
  doc.destroy();
  return state;
}

export class CollabDocs {
  readonly #docs = new Map<string, Promise<SharedNote>>();

  constructor(private readonly o: CollabOptions) {}

  count(): number {
    return this.#docs.size;
  }

  /** Writes back every document's unsaved edits (at shutdown). */
  async flushAll(): Promise<void> {
    for (const opened of this.#docs.values()) await opened.then((n) => this.#flush(n), () => {});
  }

  /**
   * Adds a socket to a note's document; the caller checked the access. Returns the socket's handlers,
   * and `setCanWrite` for when its access changes (a share narrowed to read).
   */
  async join(ownerId: string, path: string, socket: Peer["socket"], canWrite: boolean) {
    const note = await this.#open(ownerId, path);
    clearTimeout(note.evict);
    const peer: Peer = { socket, canWrite, clientIds: new Set() };
    note.peers.add(peer);
    // Sync step 1 from the server, and everyone's presence.
    socket.sendBytes(frame(MESSAGE_SYNC, (e) => sync.writeSyncStep1(e, note.doc)));
    const states = [...note.awareness.getStates().keys()];
    if (states.length) {
      const update = awarenessProtocol.encodeAwarenessUpdate(note.awareness, states);
      socket.sendBytes(frame(MESSAGE_AWARENESS, (e) => encoding.writeVarUint8Array(e, update)));
    }
    return {
      message: (data: Uint8Array) => this.#receive(note, peer, data),
      close: () => this.#leave(note, peer),
      setCanWrite: (canWrite: boolean) => void (peer.canWrite = canWrite),
    };
  }

  #receive(note: SharedNote, peer: Peer, data: Uint8Array): void {
    const d = decoding.createDecoder(data);
    const type = decoding.readVarUint(d);
    if (type === MESSAGE_SYNC) {
      const reply = encoding.createEncoder();
      encoding.writeVarUint(reply, MESSAGE_SYNC);
      const sub = decoding.peekVarUint(d);
      // A read-only peer may ask for the document (step 1) but its updates are not applied.
      if (!peer.canWrite && sub !== sync.messageYjsSyncStep1) return;
      sync.readSyncMessage(d, reply, note.doc, peer);
      if (encoding.length(reply) > 1) peer.socket.sendBytes(encoding.toUint8Array(reply));
    } else if (type === MESSAGE_AWARENESS) {
      awarenessProtocol.applyAwarenessUpdate(note.awareness, decoding.readVarUint8Array(d), peer);
    }
  }

  #leave(note: SharedNote, peer: Peer): void {
    if (!note.peers.delete(peer)) return; // left already (closed by the server, then by the runtime)
    awarenessProtocol.removeAwarenessStates(note.awareness, [...peer.clientIds], "left");
    if (note.peers.size === 0) {
      void this.#flush(note);
      note.evict = setTimeout(() => this.#drop(note), this.o.evictMs);
      (note.evict as { unref?: () => void }).unref?.();
    }
  }

  #drop(note: SharedNote): void {
    if (note.peers.size) return;
    this.#docs.delete(key(note.ownerId, note.path));
    clearTimeout(note.timer);
    for (const a of note.agents.values()) a.destroy();
    note.awareness.destroy();
    note.doc.destroy();
  }

  #open(ownerId: string, path: string): Promise<SharedNote> {
    const k = key(ownerId, path);
    let opened = this.#docs.get(k);
    if (!opened) {
      opened = (async () => {
        const note = new SharedNote(ownerId, path);
        const read = await this.o.store.read(ownerId, path);
        let stored = await this.o.updates.load(ownerId, path);
        if (stored.fileText === undefined) {
          await this.o.updates.seed(ownerId, path, seedState(read.content), read.content);
          stored = await this.o.updates.load(ownerId, path);
        }
        for (const u of stored.updates) Y.applyUpdate(note.doc, u, "load");
        note.fileText = stored.fileText ?? read.content;
        note.doc.on("update", (update: Uint8Array, origin: unknown) => {
          note.pending.push({ update, origin });
          note.appending ??= this.#append(note);
          this.#schedule(note);
        });
        note.awareness.on(
          "update",
          (
            { added, updated, removed }: { added: number[]; updated: number[]; removed: number[] },
            origin: unknown,
          ) => {
            const changed = [...added, ...updated, ...removed];
            const peer = [...note.peers].find((p) => p === origin);
            if (peer) {
              for (const id of [...added, ...updated]) peer.clientIds.add(id);
              for (const id of removed) peer.clientIds.delete(id);
            }
            const update = awarenessProtocol.encodeAwarenessUpdate(note.awareness, changed);
            const bytes = frame(MESSAGE_AWARENESS, (e) => encoding.writeVarUint8Array(e, update));
            for (const p of note.peers) p.socket.sendBytes(bytes);
          },
        );
        // The file changed while no document held the note: merged like an edit from elsewhere.
        if (read.content !== note.fileText) {
          const base = note.fileText;
          note.fileText = read.content;
          note.doc.transact(() => mergeInto(note.text, base, read.content), "file");
        }
        // Edits logged but never written back (a crash) are written back now.
        if (note.text.toString() !== note.fileText) this.#schedule(note);
        return note;
      })();
      this.#docs.set(k, opened);
      opened.catch(() => this.#docs.delete(k));
    }
    return opened;
  }

  /** Appends the waiting updates in batches, relaying each batch once it is logged. */
  async #append(note: SharedNote): Promise<void> {
    // Yield first: the caller stores this promise in note.appending before the loop can clear it.
    await null;
    while (note.pending.length) {
      const batch = note.pending.splice(0);
      try {
        if (!note.gone) await this.o.updates.append(note.ownerId, note.path, batch.map((b) => b.update));
        note.logged += batch.length;
      } catch (err) {
        // Still relayed: the editors stay together; the write-back keeps the text.
        this.o.log.error("collaborative updates not logged", { err, path: note.path });
      }
      for (const { update, origin } of batch) {
        const bytes = frame(MESSAGE_SYNC, (e) => sync.writeUpdate(e, update));
        for (const p of note.peers) if (p !== origin) p.socket.sendBytes(bytes);
      }
    }
    note.appending = undefined;
  }

  #schedule(note: SharedNote): void {
    note.dirtySince ??= Date.now();
    clearTimeout(note.timer);
    const wait = Math.min(
      this.o.writeBackMs,
      Math.max(0, note.dirtySince + this.o.maxWriteBackMs - Date.now()),
    );
    note.timer = setTimeout(() => void this.#flush(note), wait);
    (note.timer as { unref?: () => void }).unref?.();
  }

  /** Writes the text back to the note file, then compacts the log into the snapshot. */
  async #flush(note: SharedNote): Promise<void> {
    clearTimeout(note.timer);
    note.dirtySince = undefined;
    await note.appending;
    if (note.gone) return;
    const text = note.text.toString();
    const written = text !== note.fileText;
    if (written) {
      note.fileText = text;
      try {
        // Named as the collaborative editor in the live events (no single tab made the whole change).
        await runAs({ clientId: "collab" }, () => this.o.store.update(note.ownerId, note.path, text));
      } catch (err) {
        this.o.log.warn("collaborative note not written back", { err, path: note.path });
      }
    }
    if (!written && note.logged === 0) return;
    const logged = note.logged;
    try {
      await this.o.updates.compact(note.ownerId, note.path, note.fileText);
      note.logged -= logged;
    } catch (err) {
      this.o.log.warn("collaborative log not compacted", { err, path: note.path });
    }
  }

  /** A change to a note from elsewhere: merged into its open document, with the agent's presence. */
  handle(change: NoteChange): void {
    if (change.folder) return;
    // A deleted note's document goes; so does a renamed one's under its old path (the note starts
    // a new document, from its file, under the new one).
    const gone = change.kind === "deleted"
      ? change.path
      : change.kind === "renamed"
      ? change.from
      : undefined;
    if (gone !== undefined) {
      const open = this.#docs.get(key(change.userId, gone));
      void (async () => {
        // An open document stops logging first, so no row of it outlives the forgetting.
        const note = await open?.catch(() => undefined);
        if (note) {
          note.gone = true;
          clearTimeout(note.timer);
          await note.appending;
        }
        await this.o.updates.forget(change.userId, gone);
      })().catch((err) => this.o.log.warn("collaborative document not forgotten", { err, path: gone }));
    }
    if (change.kind !== "changed") return;
    const opened = this.#docs.get(key(change.userId, change.path));
    if (!opened) return;
    const actor = currentActor();
    void opened.then(async (note) => {
      const read = await this.o.store.read(change.userId, change.path);
      if (read.content === note.fileText) return; // our own write-back
      // The writer's edits of the file's text go in; the editors' unsaved edits stay.
      const base = note.fileText;
      note.fileText = read.content;
      note.doc.transact(() => mergeInto(note.text, base, read.content), "file");
      if (actor.agentId) this.#agentPresence(note, actor);
    }).catch((err) => this.o.log.warn("note change not merged into its document", { err }));
  }

  #agentPresence(note: SharedNote, actor: Actor): void {
    let agent = note.agents.get(actor.agentId!);
    if (!agent) {
      agent = new awarenessProtocol.Awareness(new Y.Doc());
      note.agents.set(actor.agentId!, agent);
    }
    agent.setLocalState({
      user: { id: actor.agentId, name: actor.agentName ?? "agent", color: "#7c3aed", kind: "agent" },
    });
    const update = awarenessProtocol.encodeAwarenessUpdate(agent, [agent.clientID]);
    awarenessProtocol.applyAwarenessUpdate(note.awareness, update, "agent");
  }
}
