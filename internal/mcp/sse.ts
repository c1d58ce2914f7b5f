/**
 * A Server-Sent Events parser following the WHATWG event-stream rules, for the response streams of
 * MCP's Streamable HTTP transport. It is fed text in arbitrary chunks: a chunk may end inside a
 * line, or between the `\r` and `\n` of a CRLF.
 */

export interface SseEvent {
  /** The `event:` field; "message" when absent. */
  type: string;
  /** The `data:` lines joined with `\n`. */
  data: string;
  /** The last event id seen on the stream so far (ids persist across events). */
  id: string | undefined;
}

export class SseParser {
  #buffer = "";
  #data: string[] = [];
  #type = "";
  #lastEventId: string | undefined;
  #retryMs: number | undefined;

  /** `lastEventId` carries the id of a previous connection, for streams resumed with Last-Event-ID. */
  constructor(lastEventId?: string) {
    this.#lastEventId = lastEventId;
  }

  /** The id to send as `Last-Event-ID` when reconnecting. */
  get lastEventId(): string | undefined {
    return this.#lastEventId;
  }

  /** The reconnection delay the server asked for with `retry:`. */
  get retryMs(): number | undefined {
    return this.#retryMs;
  }

  /** Adds a chunk of the stream and returns the events it completed. */
  push(chunk: string): SseEvent[] {
    let text = this.#buffer + chunk;
    // A chunk ending in "\r" may be the first half of "\r\n": keep it until the next chunk says.
    const heldCr = text.endsWith("\r");
    if (heldCr) text = text.slice(0, -1);
    const lines = text.split(/\r\n|\r|\n/);
    this.#buffer = lines.pop()! + (heldCr ? "\r" : "");
    const events: SseEvent[] = [];
    for (const line of lines) {
      const event = this.#line(line);
      if (event) events.push(event);
    }
    return events;
  }

  #line(line: string): SseEvent | undefined {
    if (line === "") return this.#dispatch();
    if (line.startsWith(":")) return undefined; // a comment, e.g. a keep-alive
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    switch (field) {
      case "data":
        this.#data.push(value);
        break;
      case "event":
        this.#type = value;
        break;
      case "id":
        if (!value.includes("\0")) this.#lastEventId = value;
        break;
      case "retry":
        if (/^\d+$/.test(value)) this.#retryMs = Number(value);
        break;
    }
    return undefined;
  }

  #dispatch(): SseEvent | undefined {
    const data = this.#data;
    const type = this.#type || "message";
    this.#data = [];
    this.#type = "";
    if (data.length === 0) return undefined;
    return { type, data: data.join("\n"), id: this.#lastEventId };
  }
}

/**
 * The events of a response body. An event left incomplete when the stream ends is dropped, as the
 * spec requires. Aborting `signal` cancels the body, so a reader waiting for the next event stops.
 */
export async function* readSse(
  body: ReadableStream<Uint8Array>,
  parser: SseParser,
  signal?: AbortSignal,
): AsyncGenerator<SseEvent> {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  const cancel = () => void reader.cancel().catch(() => {});
  signal?.addEventListener("abort", cancel, { once: true });
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) return;
      yield* parser.push(value);
    }
  } finally {
    signal?.removeEventListener("abort", cancel);
    cancel();
  }
}
