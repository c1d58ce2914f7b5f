/**
 * One /ws/vault socket: sends events as JSON text frames, a heartbeat every `heartbeatMs`, answers
 * `{"type":"ping"}` with `{"kind":"pong"}`, and closes with 1008 (policy violation) on a frame over
 * 64 KB or when the client reads so slowly that more than `maxBufferedBytes` wait for it.
 */
import type { ServerSocket } from "../../../internal/platform/mod.ts";

export const MAX_MESSAGE_BYTES = 64 * 1024;
export const POLICY_VIOLATION = 1008;

export interface ChannelOptions {
  heartbeatMs: number;
  maxBufferedBytes: number;
  onClose(channel: Channel): void;
}

export class Channel {
  #heartbeat: ReturnType<typeof setInterval>;
  #closed = false;

  constructor(
    readonly userId: string,
    readonly socket: ServerSocket,
    private readonly options: ChannelOptions,
  ) {
    this.#heartbeat = setInterval(
      () => this.send({ kind: "heartbeat", at: new Date().toISOString() }),
      options.heartbeatMs,
    );
    (this.#heartbeat as { unref?: () => void }).unref?.();
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Queues one message, or drops the client when its queue is full. */
  send(message: object): void {
    if (this.#closed) return;
    if (this.socket.bufferedAmount() > this.options.maxBufferedBytes) {
      this.close(POLICY_VIOLATION, "too slow: send queue full");
      return;
    }
    this.socket.send(JSON.stringify(message));
  }

  receive(data: string | Uint8Array, size: number): void {
    if (size > MAX_MESSAGE_BYTES) return this.close(POLICY_VIOLATION, "message over 64 KB");
    let message: { type?: unknown } | undefined;
    try {
      message = JSON.parse(typeof data === "string" ? data : new TextDecoder().decode(data));
    } catch {
      // not JSON: answered below
    }
    if (message?.type === "ping") this.send({ kind: "pong" });
    else this.send({ kind: "error", error: 'unknown message; the channel accepts {"type":"ping"}' });
  }

  close(code: number, reason: string): void {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#heartbeat);
    try {
      this.socket.close(code, reason);
    } catch {
      // already closed
    }
    this.options.onClose(this);
  }

  /** The socket closed from the other side. */
  gone(): void {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#heartbeat);
    this.options.onClose(this);
  }
}
