/**
 * Editing one note together over /ws/yjs: a Y.Doc whose Y.Text "content" the editor is bound to
 * (y-codemirror.next), kept in step with y-protocols' sync (type 0) and awareness (type 1). The
 * socket reconnects with backoff; edits made while it was down stay in the document and are merged
 * on the next sync, so a network drop loses nothing.
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

const MESSAGE_SYNC = 0;
const MESSAGE_AWARENESS = 1;
const BACKOFF_MS = [500, 1000, 2000, 5000, 10000];

export interface Presence {
  clientId: number;
  name: string;
  color: string;
  kind: "user" | "agent";
}

export type CollabStatus = "connecting" | "live" | "offline";

/** A colour per user, stable across sessions (a hash of the id into a pleasant palette). */
export function colorFor(id: string): string {
  const palette = ["#d9480f", "#2b8a3e", "#1971c2", "#9c36b5", "#c2255c", "#0b7285", "#5f3dc4", "#e67700"];
  let h = 0;
  for (const ch of id) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  return palette[h % palette.length]!;
}

export class CollabSession {
  readonly doc = new Y.Doc();
  readonly text = this.doc.getText("content");
  readonly awareness = new awarenessProtocol.Awareness(this.doc);
  status: CollabStatus = "connecting";
  #ws: WebSocket | undefined;
  #attempt = 0;
  #closed = false;
  #synced = false;
  #timer: ReturnType<typeof setTimeout> | undefined;
  readonly #listeners = new Set<() => void>();

  constructor(
    readonly path: string,
    readonly owner: string | undefined,
    user: { id: string; name: string },
  ) {
    const color = colorFor(user.id);
    this.awareness.setLocalStateField("user", {
      id: user.id,
      name: user.name,
      color,
      colorLight: color + "33",
      kind: "user",
    });
    this.doc.on("update", (update: Uint8Array, origin: unknown) => {
      if (origin === this) return;
      this.#send(MESSAGE_SYNC, (e) => sync.writeUpdate(e, update));
    });
    this.awareness.on(
      "update",
      (
        { added, updated, removed }: { added: number[]; updated: number[]; removed: number[] },
        origin: unknown,
      ) => {
        if (origin === "local") {
          const changed = [...added, ...updated, ...removed];
          const update = awarenessProtocol.encodeAwarenessUpdate(this.awareness, changed);
          this.#send(MESSAGE_AWARENESS, (e) => encoding.writeVarUint8Array(e, update));
        }
        this.#emit();
      },
    );
    this.#connect();
  }

  /** Has the first sync with the server completed (the text is the note's)? */
  get synced(): boolean {
    return this.#synced;
  }

  onChange(fn: () => void): () => void {
    this.#listeners.add(fn);
    return () => void this.#listeners.delete(fn);
  }

  /** Everyone else editing: people and AI agents. */
  presences(): Presence[] {
    const out: Presence[] = [];
    for (const [clientId, state] of this.awareness.getStates()) {
      if (clientId === this.doc.clientID) continue;
      const user = (state as { user?: { name?: string; color?: string; kind?: string } }).user;
      if (!user) continue;
      out.push({
        clientId,
        name: String(user.name ?? "someone"),
        color: String(user.color ?? "#888"),
        kind: user.kind === "agent" ? "agent" : "user",
      });
    }
    return out;
  }

  destroy() {
    this.#closed = true;
    clearTimeout(this.#timer);
    awarenessProtocol.removeAwarenessStates(this.awareness, [this.doc.clientID], "local");
    this.#ws?.close();
    this.awareness.destroy();
    this.doc.destroy();
  }

  #emit() {
    for (const fn of this.#listeners) fn();
  }

  #send(type: number, write: (e: encoding.Encoder) => void) {
    if (this.#ws?.readyState !== WebSocket.OPEN) return;
    const e = encoding.createEncoder();
    encoding.writeVarUint(e, type);
    write(e);
    this.#ws.send(encoding.toUint8Array(e));
  }

  #connect() {
    const params = new URLSearchParams({ path: this.path, ...(this.owner ? { owner: this.owner } : {}) });
    const ws = new WebSocket(
      `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws/yjs?${params}`,
    );
    ws.binaryType = "arraybuffer";
    this.#ws = ws;
    ws.onopen = () => {
      this.#attempt = 0;
      this.#send(MESSAGE_SYNC, (e) => sync.writeSyncStep1(e, this.doc));
      const update = awarenessProtocol.encodeAwarenessUpdate(this.awareness, [this.doc.clientID]);
      this.#send(MESSAGE_AWARENESS, (e) => encoding.writeVarUint8Array(e, update));
    };
    ws.onmessage = (ev) => {
      const d = decoding.createDecoder(new Uint8Array(ev.data as ArrayBuffer));
      const type = decoding.readVarUint(d);
      if (type === MESSAGE_SYNC) {
        const reply = encoding.createEncoder();
        encoding.writeVarUint(reply, MESSAGE_SYNC);
        const sub = sync.readSyncMessage(d, reply, this.doc, this);
        if (encoding.length(reply) > 1) ws.send(encoding.toUint8Array(reply));
        if (sub === sync.messageYjsSyncStep2 && !this.#synced) {
          this.#synced = true;
        }
        if (sub === sync.messageYjsSyncStep2) {
          this.status = "live";
          this.#emit();
        }
      } else if (type === MESSAGE_AWARENESS) {
        awarenessProtocol.applyAwarenessUpdate(this.awareness, decoding.readVarUint8Array(d), this);
      }
    };
    ws.onclose = () => {
      if (this.#closed) return;
      this.status = "offline";
      // Others' cursors are stale once we cannot hear them.
      const others = [...this.awareness.getStates().keys()].filter((id) => id !== this.doc.clientID);
      awarenessProtocol.removeAwarenessStates(this.awareness, others, this);
      this.#emit();
      const wait = BACKOFF_MS[Math.min(this.#attempt++, BACKOFF_MS.length - 1)]!;
      this.#timer = setTimeout(() => this.#connect(), wait);
    };
  }
}
