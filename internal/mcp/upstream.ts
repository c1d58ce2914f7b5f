/**
 * The client side of MCP's Streamable HTTP transport, by hand on fetch: POST a frame, read the
 * answer (a JSON body, an SSE stream, or 202 for notifications and responses), keep the session id
 * the server assigned on initialize and the negotiated protocol version, open the GET stream, and
 * end the session with DELETE. It forwards frames as they are, including methods it does not know.
 */
import type { Logger } from "../log/mod.ts";
import {
  type Frame,
  isInitializeRequest,
  type JsonRpcId,
  messagesOf,
  parseFrame,
  respondsTo,
} from "./jsonrpc.ts";
import { readSse, SseParser } from "./sse.ts";
import { sleep } from "../async/sleep.ts";

/** A failure to report to the client as the error response of its request. */
export class UpstreamError extends Error {
  override name = "UpstreamError";
}

/** HTTP 404 for a request that carried a session id: the server no longer knows the session. */
export class SessionGoneError extends UpstreamError {
  override name = "SessionGoneError";

  constructor(readonly sessionId: string, endpoint: string) {
    super(`the MCP server at ${endpoint} no longer knows the session (HTTP 404)`);
  }
}

/** HTTP 429: the server refused the request for now; `retryAfterSeconds` from its Retry-After header. */
export class RateLimitedError extends UpstreamError {
  override name = "RateLimitedError";

  constructor(message: string, readonly retryAfterSeconds: number | undefined) {
    super(message);
  }
}

export interface UpstreamOptions {
  url: URL;
  token: string;
  log: Logger;
  /** Waits between reconnections of a stream that ended early; its length bounds the attempts. */
  retryDelaysMs: readonly number[];
}

const POST_ACCEPT = "application/json, text/event-stream";
const SSE = "text/event-stream";

export class Upstream {
  /** Assigned by the server in its initialize response; sent on every later request. */
  sessionId: string | undefined;
  /** Negotiated in the initialize exchange; sent as MCP-Protocol-Version on every later request. */
  protocolVersion: string | undefined;
  /** The endpoint as errors name it: without credentials, query or fragment. */
  readonly endpoint: string;
  readonly #url: URL;
  readonly #token: string;
  readonly #log: Logger;
  readonly #delays: readonly number[];

  constructor(options: UpstreamOptions) {
    this.#url = options.url;
    this.#token = options.token;
    this.#log = options.log;
    this.#delays = options.retryDelaysMs;
    this.endpoint = `${options.url.origin}${options.url.pathname}`;
  }

  /**
   * POSTs a frame and passes every message of the answer to `onMessage`, until the responses to
   * all ids in `expect` have arrived (each is removed from `expect` as it passes). Rejects with an
   * UpstreamError when the answer cannot be had; `expect` then holds the ids left unanswered.
   */
  async exchange(
    frame: Frame,
    expect: Set<JsonRpcId>,
    onMessage: (message: Frame) => void,
    signal?: AbortSignal,
  ): Promise<void> {
    const initialize = isInitializeRequest(frame);
    // An initialize starts a new session: it must not carry the old one's id or version.
    if (initialize) this.sessionId = this.protocolVersion = undefined;
    const headers = this.#headers(POST_ACCEPT);
    headers.set("Content-Type", "application/json");
    const sent = this.sessionId;
    const res = await this.#fetch({ method: "POST", headers, body: JSON.stringify(frame), signal });
    this.#log.debug("POST", { status: res.status, method: methodOf(frame), session: sent !== undefined });
    if (initialize && res.ok) this.sessionId = res.headers.get("mcp-session-id") ?? undefined;
    await this.#check(res, sent);
    if (expect.size === 0) {
      await res.body?.cancel();
      return;
    }

    const deliver = (data: string) => {
      const parsed = parseFrame(data);
      if (!parsed.ok) {
        return this.#log.warn("ignoring a message that is not JSON-RPC", { bytes: data.length });
      }
      const message = parsed.frame;
      for (const m of messagesOf(message)) {
        const id = respondsTo(m);
        if (id === undefined) continue;
        expect.delete(id);
        const version = (m.result as { protocolVersion?: unknown } | undefined)?.protocolVersion;
        if (initialize && typeof version === "string") this.protocolVersion = version;
      }
      onMessage(message);
    };
    const type = mediaType(res);
    if (type === "application/json") deliver(await res.text());
    else if (type === SSE) await this.#readResponseStream(res, expect, deliver, signal);
    else {
      await res.body?.cancel();
      throw new UpstreamError(
        `the MCP server at ${this.endpoint} answered with unexpected content type '${type}'`,
      );
    }
    if (expect.size > 0) {
      throw new UpstreamError(`the MCP server at ${this.endpoint} did not answer the request`);
    }
  }

  /**
   * Opens the GET stream on which the server sends messages of its own (notifications, requests),
   * resuming after `lastEventId` when given. The caller handles the status.
   */
  openStream(lastEventId: string | undefined, signal?: AbortSignal): Promise<Response> {
    const headers = this.#headers(SSE);
    if (lastEventId !== undefined) headers.set("Last-Event-ID", lastEventId);
    return this.#fetch({ method: "GET", headers, signal });
  }

  /** Ends the session with DELETE, best effort: the server may be gone, or not support it (405). */
  async endSession(): Promise<void> {
    if (this.sessionId === undefined) return;
    try {
      const res = await fetch(this.#url, {
        method: "DELETE",
        headers: this.#headers(),
        signal: AbortSignal.timeout(5_000),
      });
      await res.body?.cancel();
      this.#log.debug("session ended", { status: res.status });
    } catch (err) {
      this.#log.debug("could not end the session", { err });
    }
    this.sessionId = undefined;
  }

  /**
   * Reads an SSE response until `expect` is empty. A stream that ends before that is resumed with a
   * GET carrying Last-Event-ID, as the spec asks, when the server gave its events ids; attempts are
   * bounded, and the count starts over whenever a resumed stream made progress.
   */
  async #readResponseStream(
    res: Response,
    expect: Set<JsonRpcId>,
    deliver: (data: string) => void,
    signal?: AbortSignal,
  ) {
    let lastEventId: string | undefined;
    for (let attempt = 0;;) {
      const parser = new SseParser(lastEventId);
      try {
        for await (const event of readSse(res.body!, parser, signal)) {
          if (event.type === "message" && event.data.trim() !== "") deliver(event.data);
          if (expect.size === 0) return;
        }
      } catch (err) {
        if (signal?.aborted) throw err;
        this.#log.debug("response stream broke", { err });
      }
      attempt = parser.lastEventId === lastEventId ? attempt + 1 : 1;
      lastEventId = parser.lastEventId;
      if (lastEventId === undefined || attempt > this.#delays.length) {
        throw new UpstreamError(
          `the MCP server at ${this.endpoint} closed the response stream before answering`,
        );
      }
      await sleep(parser.retryMs ?? this.#delays[attempt - 1]!, signal);
      this.#log.debug("resuming the response stream");
      const sent = this.sessionId;
      res = await this.openStream(lastEventId, signal);
      await this.#check(res, sent);
      if (mediaType(res) !== SSE) {
        throw new UpstreamError(`the MCP server at ${this.endpoint} did not resume the stream`);
      }
    }
  }

  /** Turns an HTTP failure into the error the client will read. */
  async #check(res: Response, sentSessionId: string | undefined): Promise<void> {
    if (res.ok) return;
    const detail = errorDetail(await res.text().catch(() => ""));
    const where = `the MCP server at ${this.endpoint}`;
    if (res.status === 404 && sentSessionId !== undefined) {
      throw new SessionGoneError(sentSessionId, this.endpoint);
    }
    if (res.status === 401) {
      throw new UpstreamError(`${where} rejected the token (HTTP 401): it was revoked or is invalid`);
    }
    if (res.status === 404) throw new UpstreamError(`no MCP endpoint at ${this.endpoint} (HTTP 404)`);
    if (res.status === 429) {
      throw new RateLimitedError(
        `${where} refused the request for now (HTTP 429)${detail}`,
        retryAfterSeconds(res.headers.get("retry-after")),
      );
    }
    if (res.status >= 500) throw new UpstreamError(`${where} failed (HTTP ${res.status})${detail}`);
    throw new UpstreamError(`${where} refused the request (HTTP ${res.status})${detail}`);
  }

  #headers(accept?: string): Headers {
    const headers = new Headers({ Authorization: `Bearer ${this.#token}` });
    if (accept) headers.set("Accept", accept);
    if (this.sessionId !== undefined) headers.set("Mcp-Session-Id", this.sessionId);
    if (this.protocolVersion !== undefined) headers.set("MCP-Protocol-Version", this.protocolVersion);
    return headers;
  }

  async #fetch(init: RequestInit): Promise<Response> {
    try {
      return await fetch(this.#url, init);
    } catch (err) {
      if (init.signal?.aborted) throw err;
      throw new UpstreamError(`cannot reach the MCP server at ${this.endpoint}: ${causeOf(err)}`);
    }
  }
}

export function mediaType(res: Response): string {
  return (res.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
}

/** Retry-After in seconds: a number of seconds, or an HTTP date (RFC 9110 §10.2.3). */
function retryAfterSeconds(value: string | null): number | undefined {
  if (value === null) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

/** The server's own explanation from a JSON error body (JSON-RPC or `{error}`), if it gave one. */
function errorDetail(body: string): string {
  try {
    const parsed = JSON.parse(body);
    const message = typeof parsed?.error === "string" ? parsed.error : parsed?.error?.message;
    return typeof message === "string" && message !== "" ? `: ${message.slice(0, 300)}` : "";
  } catch {
    return "";
  }
}

/** fetch hides the reason (refused, DNS, TLS) in `cause`. */
function causeOf(err: unknown): string {
  const cause = (err as { cause?: unknown })?.cause;
  const inner = cause instanceof Error ? cause.message : undefined;
  return inner ?? (err instanceof Error ? err.message : String(err));
}

function methodOf(frame: Frame): string {
  return messagesOf(frame).map((m) => String(m.method ?? "response")).join(",");
}
