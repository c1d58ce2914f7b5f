/**
 * The standalone GET stream of a Streamable HTTP session: how the server reaches the client outside
 * of any request (notifications such as list changes or log messages, and its own requests). It is
 * optional for servers; one without it answers 405 and is not asked again.
 */
import type { Logger } from "../log/mod.ts";
import { type Frame, parseFrame } from "./jsonrpc.ts";
import { readSse, SseParser } from "./sse.ts";
import { sleep } from "../async/sleep.ts";
import { mediaType, type Upstream } from "./upstream.ts";

/** Answers meaning "no stream for you": none offered (405, or 404 without a session), or not for this token. */
const NOT_OFFERED = [401, 403, 404, 405];

export interface ServerStreamOptions {
  upstream: Upstream;
  onMessage(message: Frame): void;
  /** The server answered 404 for this session: it is gone and must be re-established. */
  onSessionGone(sessionId: string): void;
  /** Reconnection delays, the last one repeated: the backoff is bounded. */
  retryDelaysMs: readonly number[];
  log: Logger;
  /** Stops following the stream. */
  signal: AbortSignal;
}

/**
 * Follows the GET stream of the session current when called, until `signal` aborts or the server
 * says it has no stream (405), refuses the token (401, 403) or forgot the session (404). After a
 * disconnect it reconnects with Last-Event-ID, so a server that keeps event ids replays what was
 * missed.
 */
export async function followServerStream(options: ServerStreamOptions): Promise<void> {
  const { upstream, log, signal } = options;
  const sessionId = upstream.sessionId;
  const delays = options.retryDelaysMs;
  let lastEventId: string | undefined;
  let failures = 0;
  const backoff = () => sleep(delays[Math.min(failures++, delays.length - 1)]!, signal);

  while (!signal.aborted) {
    let res: Response;
    try {
      res = await upstream.openStream(lastEventId, signal);
    } catch (err) {
      if (signal.aborted) return;
      log.debug("server stream: cannot connect", { err });
      await backoff();
      continue;
    }
    if (res.status === 404 && sessionId !== undefined) {
      await res.body?.cancel();
      options.onSessionGone(sessionId);
      return;
    }
    if (NOT_OFFERED.includes(res.status)) {
      await res.body?.cancel();
      log.debug("server stream: not offered, not following it", { status: res.status });
      return;
    }
    if (!res.ok || mediaType(res) !== "text/event-stream" || !res.body) {
      await res.body?.cancel();
      log.debug("server stream: refused", { status: res.status });
      await backoff();
      continue;
    }
    log.debug("server stream: open", { resumed: lastEventId !== undefined });
    failures = 0;
    const parser = new SseParser(lastEventId);
    try {
      for await (const event of readSse(res.body, parser, signal)) {
        if (event.type !== "message" || event.data.trim() === "") continue;
        const parsed = parseFrame(event.data);
        if (parsed.ok) options.onMessage(parsed.frame);
        else log.warn("server stream: ignoring a message that is not JSON-RPC", { bytes: event.data.length });
      }
    } catch (err) {
      if (signal.aborted) return;
      log.debug("server stream: broke", { err });
    }
    lastEventId = parser.lastEventId;
    if (parser.retryMs !== undefined) await sleep(parser.retryMs, signal);
    else await backoff();
  }
}
