/**
 * Server-side WebSockets on both runtimes, behind one small interface. Bun upgrades through the
 * server object of `Bun.serve` (handlers are given once, per server, so each socket carries its own in
 * `data`); Deno upgrades a request with `Deno.upgradeWebSocket`. A route gets `upgrade` from the
 * listener (see PeerInfo) and answers with what it returns.
 */

/** One accepted socket, the same on both runtimes. */
export interface ServerSocket {
  /** Queues a text frame. */
  send(text: string): void;
  /** Queues a binary frame. */
  sendBytes(bytes: Uint8Array): void;
  close(code?: number, reason?: string): void;
  /** Bytes queued for this socket and not yet handed to the network. */
  bufferedAmount(): number;
}

export interface SocketHandlers {
  open?(socket: ServerSocket): void;
  /** `size` is the frame's length in bytes (text is counted as UTF-8). */
  message?(socket: ServerSocket, data: string | Uint8Array, size: number): void;
  close?(socket: ServerSocket, code: number, reason: string): void;
}

/** Upgrades the request being handled; undefined when it is not a WebSocket handshake. */
export type Upgrade = (handlers: SocketHandlers) => Response | undefined;

/** Frames larger than this are cut by the runtime itself (Bun closes with 1009); below it, routes decide. */
export const MAX_FRAME_BYTES = 1024 * 1024;

const encoder = new TextEncoder();
export const byteLength = (data: string | Uint8Array | ArrayBuffer) =>
  typeof data === "string" ? encoder.encode(data).length : data.byteLength;

/** What a Bun ServerWebSocket offers us. */
export interface BunSocket {
  data: { handlers: SocketHandlers; socket?: ServerSocket };
  send(data: string | Uint8Array): number;
  close(code?: number, reason?: string): void;
  getBufferedAmount(): number;
}

/** The `websocket` option of Bun.serve: dispatches to the handlers each socket was upgraded with. */
export const bunWebSocketHandlers = {
  maxPayloadLength: MAX_FRAME_BYTES,
  // Heartbeats are the route's business; no idle cut by the runtime.
  idleTimeout: 0,
  open(ws: BunSocket) {
    const socket: ServerSocket = {
      send: (text) => void ws.send(text),
      sendBytes: (bytes) => void ws.send(bytes),
      close: (code, reason) => ws.close(code, reason),
      bufferedAmount: () => ws.getBufferedAmount(),
    };
    ws.data.socket = socket;
    ws.data.handlers.open?.(socket);
  },
  message(ws: BunSocket, data: string | Uint8Array) {
    ws.data.handlers.message?.(ws.data.socket!, data, byteLength(data));
  },
  close(ws: BunSocket, code: number, reason: string) {
    ws.data.handlers.close?.(ws.data.socket!, code, reason);
  },
};

interface DenoUpgrade {
  upgradeWebSocket(
    req: Request,
    options?: { idleTimeout?: number },
  ): { socket: WebSocket; response: Response };
}

/** Deno: the standard WebSocket object behind the same interface. */
export function denoUpgrade(deno: DenoUpgrade, req: Request): Upgrade {
  return (handlers) => {
    if (req.headers.get("upgrade")?.toLowerCase() !== "websocket") return undefined;
    const { socket: ws, response } = deno.upgradeWebSocket(req, { idleTimeout: 0 });
    ws.binaryType = "arraybuffer";
    const socket: ServerSocket = {
      send: (text) => ws.readyState === WebSocket.OPEN && ws.send(text),
      sendBytes: (bytes) => ws.readyState === WebSocket.OPEN && ws.send(bytes as Uint8Array<ArrayBuffer>),
      close: (code, reason) => ws.close(code, reason),
      bufferedAmount: () => ws.bufferedAmount,
    };
    ws.onopen = () => handlers.open?.(socket);
    ws.onmessage = (e) => {
      const data = typeof e.data === "string" ? e.data : new Uint8Array(e.data as ArrayBuffer);
      if (byteLength(data) > MAX_FRAME_BYTES) return ws.close(1009, "message too big");
      handlers.message?.(socket, data, byteLength(data));
    };
    ws.onclose = (e) => handlers.close?.(socket, e.code, e.reason);
    return response;
  };
}
