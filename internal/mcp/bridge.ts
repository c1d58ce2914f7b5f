/**
 * The stdio-to-HTTP bridge: an MCP server on stdin/stdout for hosts that only speak stdio, which
 * forwards every frame to a Streamable HTTP endpoint and writes back everything the server sends.
 * The client on stdin should not notice the HTTP hop: session expiry is repaired behind its back,
 * a read refused for a short while (HTTP 429 with a Retry-After of at most RATE_LIMIT_RETRY_MAX_SECONDS)
 * is sent once more after the wait, and every failure becomes the error response of the request it
 * hit, so no request is left waiting.
 */
import { type Logger, silentLogger } from "../log/mod.ts";
import {
  BRIDGE_ERROR,
  errorResponse,
  type Frame,
  isInitializeRequest,
  isNotification,
  type JsonRpcId,
  parseFrame,
  requestIds,
  respondsTo,
} from "./jsonrpc.ts";
import { readLines, toLine } from "./ndjson.ts";
import { followServerStream } from "./server_stream.ts";
import { ReadRequests } from "./read_requests.ts";
import { RateLimitedError, SessionGoneError, Upstream, UpstreamError } from "./upstream.ts";
import { sleep } from "../async/sleep.ts";

export interface StdioBridgeOptions {
  /** The Streamable HTTP endpoint, e.g. `https://memsvc.example.com/mcp`. */
  url: URL | string;
  /** Sent as `Authorization: Bearer <token>` on every request; never logged. */
  token: string;
  /** Where client frames come from. Default process.stdin. */
  input?: AsyncIterable<Uint8Array | string>;
  /** Where messages for the client go, one per line. Default process.stdout. */
  output?: { write(chunk: string): unknown };
  /** Diagnostics, on stderr in the binaries. Default: silent. */
  log?: Logger;
  /** Waits before reconnecting a broken stream; bounded, the last one repeats. Default 0.5 s to 30 s. */
  retryDelaysMs?: readonly number[];
}

const DEFAULT_RETRY_DELAYS_MS = [500, 1_000, 2_000, 5_000, 10_000, 30_000];

/**
 * The longest Retry-After the bridge waits out before sending a refused read again (once). Short next
 * to the 60 s an MCP client commonly waits for an answer, so the retried answer still arrives in time;
 * a longer wait goes back to the client as the error, which says how long. Writes are never resent.
 */
export const RATE_LIMIT_RETRY_MAX_SECONDS = 5;

/**
 * Runs the bridge until the input ends, then lets in-flight requests finish (their responses are
 * written), ends the HTTP session with DELETE and resolves.
 *
 * @example
 * await runStdioBridge({ url: `${baseUrl}/mcp`, token: process.env.MEMSVC_TOKEN! });
 */
export function runStdioBridge(options: StdioBridgeOptions): Promise<void> {
  return new StdioBridge(options).run(options.input ?? process.stdin);
}

class StdioBridge {
  readonly #upstream: Upstream;
  readonly #output: { write(chunk: string): unknown };
  readonly #log: Logger;
  readonly #retryDelaysMs: readonly number[];
  /** Work still to finish before exiting: forwarded requests, a session repair. */
  readonly #inflight = new Set<Promise<void>>();
  /** Requests waiting for their response, by id, so the client can cancel them. */
  readonly #pending = new Map<JsonRpcId, AbortController>();
  /** The client's initialize request, replayed to open a new session when the server lost ours. */
  #clientInitialize: Record<string, unknown> | undefined;
  #sessionLost = false;
  #recovery: Promise<void> | undefined;
  #recoveries = 0;
  /** Stops the GET stream of the current session. */
  #serverStream: AbortController | undefined;
  /** Which requests only read (and so may be resent after a 429). */
  readonly #reads = new ReadRequests();

  constructor(options: StdioBridgeOptions) {
    this.#log = options.log ?? silentLogger;
    this.#output = options.output ?? process.stdout;
    this.#retryDelaysMs = options.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
    this.#upstream = new Upstream({
      url: new URL(options.url),
      token: options.token,
      log: this.#log,
      retryDelaysMs: this.#retryDelaysMs,
    });
  }

  async run(input: AsyncIterable<Uint8Array | string>): Promise<void> {
    this.#log.debug("bridge started", { endpoint: this.#upstream.endpoint });
    for await (const line of readLines(input)) {
      const parsed = parseFrame(line);
      if (parsed.ok) await this.#dispatch(parsed.frame);
      else this.#write(errorResponse(null, parsed.code, parsed.message));
    }
    this.#log.debug("stdin ended: draining", { inflight: this.#inflight.size });
    while (this.#inflight.size > 0) await Promise.all(this.#inflight);
    this.#serverStream?.abort();
    await this.#upstream.endSession();
    this.#log.debug("bridge stopped");
  }

  /**
   * Reading stdin waits here, which is what queues frames: nothing follows an initialize until its
   * answer (and so the session id) is in, and each notification or response is accepted before the
   * next frame leaves, so the server sees them in the client's order. Requests run concurrently.
   */
  async #dispatch(frame: Frame) {
    const ids = requestIds(frame);
    if (isInitializeRequest(frame)) {
      this.#clientInitialize = frame;
      this.#sessionLost = false;
      this.#serverStream?.abort();
      await this.#forward(frame, ids);
    } else if (ids.length > 0) {
      this.#track(this.#forward(frame, ids));
    } else {
      await this.#forward(frame, ids);
      if (isNotification(frame, "notifications/initialized")) this.#openServerStream();
      if (isNotification(frame, "notifications/cancelled")) {
        // A cancelled request gets no response (MCP spec), so stop waiting for one.
        const { requestId } = (frame.params ?? {}) as { requestId?: JsonRpcId };
        if (requestId !== undefined) this.#pending.get(requestId)?.abort();
      }
    }
  }

  /** Sends a frame and writes the answer; on failure, an error response for each unanswered request. */
  async #forward(frame: Frame, ids: JsonRpcId[]) {
    const expect = new Set(ids);
    const cancel = new AbortController();
    for (const id of ids) this.#pending.set(id, cancel);
    const onMessage = (message: Frame) => {
      if (!Array.isArray(message) && respondsTo(message) !== undefined) this.#reads.learn(frame, message);
      this.#write(message);
    };
    try {
      let renewed = false;
      let waited = false;
      for (;;) {
        try {
          if (!isInitializeRequest(frame)) await this.#ensureSession();
          await this.#upstream.exchange(frame, expect, onMessage, cancel.signal);
          return;
        } catch (err) {
          if (err instanceof SessionGoneError && !renewed) {
            // The spec's answer to 404: a new session, then the same frame again (once).
            renewed = true;
            this.#sessionGone(err.sessionId);
          } else if (err instanceof RateLimitedError && !waited && this.#shortWait(err, frame)) {
            waited = true;
            this.#log.info("rate limited: waiting, then sending the read again", {
              ids,
              retryAfterSeconds: err.retryAfterSeconds,
            });
            await sleep(err.retryAfterSeconds! * 1000, cancel.signal);
          } else throw err;
        }
      }
    } catch (err) {
      if (cancel.signal.aborted) return this.#log.debug("request cancelled by the client", { ids });
      const message = err instanceof UpstreamError ? err.message : `MCP bridge failure: ${String(err)}`;
      this.#log.warn("forwarding failed", { ids, error: message });
      for (const id of expect) this.#write(errorResponse(id, BRIDGE_ERROR, message));
    } finally {
      for (const id of ids) if (this.#pending.get(id) === cancel) this.#pending.delete(id);
    }
  }

  /** A refusal worth waiting out: a read, with a Retry-After the client can afford to wait. */
  #shortWait(err: RateLimitedError, frame: Frame): boolean {
    const wait = err.retryAfterSeconds;
    return wait !== undefined && wait <= RATE_LIMIT_RETRY_MAX_SECONDS && this.#reads.isRead(frame);
  }

  /** Marks the session lost, unless a newer one replaced it already. */
  #sessionGone(sessionId: string) {
    if (this.#upstream.sessionId !== sessionId) return;
    this.#log.info("the server lost the session: starting a new one");
    this.#sessionLost = true;
    this.#serverStream?.abort();
  }

  /** Re-establishes a lost session; concurrent callers share one attempt. */
  async #ensureSession() {
    if (!this.#sessionLost) return;
    this.#recovery ??= this.#reinitialize().finally(() => (this.#recovery = undefined));
    await this.#recovery;
  }

  /** Opens a new session as the client did: its initialize, then notifications/initialized. */
  async #reinitialize() {
    if (!this.#clientInitialize) throw new UpstreamError("the MCP session was lost before initialization");
    const id = `mcp-bridge-reinitialize-${++this.#recoveries}`;
    const expect = new Set<JsonRpcId>([id]);
    let answer: Record<string, unknown> | undefined;
    await this.#upstream.exchange({ ...this.#clientInitialize, id }, expect, (message) => {
      // The client already has an initialize result; only the server's other messages reach it.
      if (!Array.isArray(message) && respondsTo(message) === id) answer = message;
      else this.#write(message);
    });
    const error = (answer?.error as { message?: string } | undefined)?.message;
    if (error !== undefined) throw new UpstreamError(`the MCP server refused a new session: ${error}`);
    await this.#upstream.exchange(
      { jsonrpc: "2.0", method: "notifications/initialized" },
      new Set(),
      (m) => this.#write(m),
    );
    this.#sessionLost = false;
    this.#log.info("new session established");
    this.#openServerStream();
  }

  #openServerStream() {
    this.#serverStream?.abort();
    const stop = new AbortController();
    this.#serverStream = stop;
    followServerStream({
      upstream: this.#upstream,
      onMessage: (message) => this.#write(message),
      onSessionGone: (sessionId) => {
        this.#sessionGone(sessionId);
        this.#track(
          this.#ensureSession().catch((err) => {
            // Not fatal: the client's next request tries again, and reports the error if it fails.
            this.#log.warn("could not re-establish the session", { error: String(err) });
          }),
        );
      },
      retryDelaysMs: this.#retryDelaysMs,
      log: this.#log,
      signal: stop.signal,
    }).catch((err) => this.#log.warn("server stream failed", { error: String(err) }));
  }

  /** Keeps `work` (which handles its own errors) until it settles, so the end of input waits for it. */
  #track(work: Promise<void>) {
    this.#inflight.add(work);
    const forget = () => void this.#inflight.delete(work);
    work.then(forget, forget);
  }

  #write(message: unknown) {
    this.#output.write(toLine(message));
  }
}
