/**
 * A minimal y-websocket-style client for the vault's /ws/yjs (tests and bench:vault): one Y.Doc, its
 * awareness, one socket speaking y-protocols sync (type 0) and awareness (type 1).
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

/** One editor: its document, presence and socket. */
export class Editor {
  readonly awareness: awarenessProtocol.Awareness;
  readonly ws: WebSocket;
  readonly opened: Promise<void>;
  synced = false;
  /** How the server closed the socket, once it did. */
  closed: { code: number; reason: string } | undefined;

  /** `doc`: an editor reconnecting with the document it had (its items must not come back doubled). */
  constructor(url: string, headers: Record<string, string>, name: string, readonly doc = new Y.Doc()) {
    this.awareness = new awarenessProtocol.Awareness(this.doc);
    const Ctor = WebSocket as unknown as new (
      url: string,
      opts: { headers: Record<string, string> },
    ) => WebSocket;
    this.ws = new Ctor(url, { headers });
    this.ws.binaryType = "arraybuffer";
    this.ws.addEventListener("close", (e) => (this.closed = { code: e.code, reason: e.reason }));
    this.opened = new Promise((resolve, reject) => {
      this.ws.onopen = () => resolve();
      this.ws.onerror = () => reject(new Error("refused"));
    });
    this.ws.onmessage = (e) => {
      const d = decoding.createDecoder(new Uint8Array(e.data as ArrayBuffer));
      const type = decoding.readVarUint(d);
      if (type === 0) {
        const reply = encoding.createEncoder();
        encoding.writeVarUint(reply, 0);
        const sub = sync.readSyncMessage(d, reply, this.doc, "remote");
        if (sub === sync.messageYjsSyncStep2) this.synced = true;
        if (encoding.length(reply) > 1) this.ws.send(encoding.toUint8Array(reply));
      } else if (type === 1) {
        awarenessProtocol.applyAwarenessUpdate(this.awareness, decoding.readVarUint8Array(d), "remote");
      }
    };
    this.doc.on("update", (update: Uint8Array, origin: unknown) => {
      if (origin === "remote" || this.ws.readyState !== WebSocket.OPEN) return;
      const e = encoding.createEncoder();
      encoding.writeVarUint(e, 0);
      sync.writeUpdate(e, update);
      this.ws.send(encoding.toUint8Array(e));
    });
    this.awareness.on(
      "update",
      ({ added, updated }: { added: number[]; updated: number[] }, origin: unknown) => {
        if (origin === "remote" || this.ws.readyState !== WebSocket.OPEN) return;
        const e = encoding.createEncoder();
        encoding.writeVarUint(e, 1);
        encoding.writeVarUint8Array(
          e,
          awarenessProtocol.encodeAwarenessUpdate(this.awareness, [...added, ...updated]),
        );
        this.ws.send(encoding.toUint8Array(e));
      },
    );
    this.opened.then(() => {
      // Our sync step 1, then our presence.
      const e = encoding.createEncoder();
      encoding.writeVarUint(e, 0);
      sync.writeSyncStep1(e, this.doc);
      this.ws.send(encoding.toUint8Array(e));
      this.awareness.setLocalState({
        user: { id: name, name, color: "#123456", kind: "user" },
        cursor: null,
      });
    }, () => {});
  }

  get text(): string {
    return this.doc.getText("content").toString();
  }

  close() {
    this.awareness.destroy();
    this.ws.close();
  }
}
