/**
 * Collaborative editing of one note at a time (Yjs): a Y.Doc per (owner, note) with its text in the
 * Y.Text "content", loaded from the note when the first socket opens it, spoken to with y-protocols'
 * sync (message type 0) and awareness (type 1). Edits are written back to the note file after
 * `writeBackMs` without edits (and at most `maxWriteBackMs` apart); changes to the note made
 * elsewhere (the API, MCP, disk) are merged into the document, and an MCP agent's edit shows as an
 * agent presence. A socket's awareness states are the Yjs clientIDs it announced, removed when it
 * closes (not the socket's identity, which left cursors behind in the reference).
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

export const MESSAGE_SYNC = 0;
export const MESSAGE_AWARENESS = 1;

export interface CollabOptions {
  store: NoteStore;
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

/** Replaces `text`'s content with `next`, touching only the middle that differs. */
function replaceText(text: Y.Text, next: string): void {
  const current = text.toString();
  if (current === next) return;
  let start = 0;
  while (start < current.length && start < next.length && current[start] === next[start]) start++;
  let end = 0;
  while (
    end < current.length - start && end < next.length - start &&
    current[current.length - 1 - end] === next[next.length - 1 - end]
  ) end++;
  text.delete(start, current.length - start - end);
  text.insert(start, next.slice(start, next.length - end));
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

  /** Adds a socket to a note's document; the caller checked the access. Returns the socket's handlers. */
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
    note.peers.delete(peer);
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
        note.fileText = read.content;
        note.text.insert(0, read.content);
        note.doc.on("update", (update: Uint8Array, origin: unknown) => {
          const bytes = frame(MESSAGE_SYNC, (e) => sync.writeUpdate(e, update));
          for (const p of note.peers) if (p !== origin) p.socket.sendBytes(bytes);
          if (origin !== "file") this.#schedule(note);
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
        return note;
      })();
      this.#docs.set(k, opened);
      opened.catch(() => this.#docs.delete(k));
    }
    return opened;
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

  async #flush(note: SharedNote): Promise<void> {
    clearTimeout(note.timer);
    note.dirtySince = undefined;
    const text = note.text.toString();
    if (text === note.fileText) return;
    note.fileText = text;
    try {
      // Named as the collaborative editor in the live events (no single tab made the whole change).
      await runAs({ clientId: "collab" }, () => this.o.store.update(note.ownerId, note.path, text));
    } catch (err) {
      this.o.log.warn("collaborative note not written back", { err, path: note.path });
    }
  }

  /** A change to a note from elsewhere: merged into its open document, with the agent's presence. */
  handle(change: NoteChange): void {
    if (change.folder || change.kind !== "changed") return;
    const opened = this.#docs.get(key(change.userId, change.path));
    if (!opened) return;
    const actor = currentActor();
    void opened.then(async (note) => {
      const read = await this.o.store.read(change.userId, change.path);
      if (read.content === note.fileText) return; // our own write-back
      note.fileText = read.content;
      note.doc.transact(() => replaceText(note.text, read.content), "file");
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
