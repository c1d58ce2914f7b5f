/**
 * The legacy HTTP+SSE MCP transport on web-standard streams (the SDK's own is tied to node:http).
 * The client opens GET /mcp/sse and reads an `endpoint` event naming where to POST its messages;
 * server messages arrive as `message` events. Comment lines keep idle streams (and proxies) alive.
 */
import type { AuthInfo, JSONRPCMessage, Transport } from "./sdk.ts";

const encoder = new TextEncoder();

export class SseServerTransport implements Transport {
  readonly sessionId = crypto.randomUUID();
  readonly response: Response;
  onmessage?: (message: JSONRPCMessage, extra?: { authInfo?: AuthInfo }) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  #keepAlive: ReturnType<typeof setInterval> | undefined;
  #closed = false;

  constructor(messagesPath: string, keepAliveMs: number) {
    const stream = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.#controller = controller;
        this.#write(`event: endpoint\ndata: ${messagesPath}?sessionId=${this.sessionId}\n\n`);
      },
      // The client went away.
      cancel: () => void this.close(),
    });
    this.#keepAlive = setInterval(() => this.#write(": keep-alive\n\n"), keepAliveMs);
    this.response = new Response(stream, {
      headers: {
        "content-type": "text/event-stream",
        "cache-control": "no-cache, no-transform",
        connection: "keep-alive",
      },
    });
  }

  start(): Promise<void> {
    return Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    this.#write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
    return Promise.resolve();
  }

  /** A message the client POSTed to /mcp/messages. */
  receive(message: JSONRPCMessage, authInfo: AuthInfo): void {
    this.onmessage?.(message, { authInfo });
  }

  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#closed = true;
    clearInterval(this.#keepAlive);
    try {
      this.#controller.close();
    } catch {
      // already closed by the client
    }
    this.onclose?.();
    return Promise.resolve();
  }

  #write(text: string) {
    if (this.#closed) return;
    try {
      this.#controller.enqueue(encoder.encode(text));
    } catch (err) {
      this.onerror?.(err as Error);
      void this.close();
    }
  }
}
