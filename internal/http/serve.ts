import type { Hono } from "hono";
import type { Logger } from "../log/mod.ts";
import {
  exitOnStopSignals,
  listen as runtimeListen,
  type Listener,
  type ListenOptions,
  type PeerInfo,
} from "../platform/mod.ts";
import type { AppEnv } from "./env.ts";

/**
 * Starts the listener a server runs on. The default is the runtime's (internal/platform listen); a
 * factory serves what the runtime's server cannot, such as TLS whose certificate is swapped while
 * serving, or HTTP/2 (controller/gitsync/tls_listener.ts).
 */
export type ListenFactory = (
  handler: (req: Request, peer: PeerInfo) => Response | Promise<Response>,
  options: ListenOptions,
) => Listener;

export interface ServeOptions {
  hostname: string;
  /** 0 picks a free port; the chosen one is in the "listening" log line and on RunningServer. */
  port: number;
  /** Serve HTTPS with this certificate chain and key (PEM text); the URL then says https. */
  tls?: { cert: string; key: string };
  log: Logger;
  /** How long shutdown waits for in-flight requests before closing anyway. Default 10 s. */
  drainTimeoutMs?: number;
  /** Ends long-lived responses (event streams) that would otherwise hold the drain open; runs first. */
  beforeDrain?: () => Promise<void>;
  /** Releases what the server holds (stores, loops); runs once, after draining. */
  onClose?: () => Promise<void>;
  /** Stop gracefully on SIGTERM and SIGINT, then exit. Default true. */
  handleSignals?: boolean;
  /** Seconds a connection may stay idle; default 0, no limit (event streams stay open). */
  idleTimeoutSeconds?: number;
  /** The listener; default the runtime's. */
  listen?: ListenFactory;
}

export interface RunningServer {
  readonly url: string;
  readonly port: number;
  /** Stop accepting, drain in-flight requests, run onClose. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Serves an app until stopped. Shutdown order matters: stop accepting, let in-flight requests
 * finish (bounded by drainTimeoutMs), and only then close stores, so no request loses its
 * database mid-flight. A second signal, sent more than a second after the first, exits at once.
 */
export function serve(app: Hono<AppEnv>, options: ServeOptions): RunningServer {
  const { log } = options;
  const listen = options.listen ?? runtimeListen;
  const listener = listen((req, peer) => app.fetch(req, peer), {
    hostname: options.hostname,
    port: options.port,
    idleTimeoutSeconds: options.idleTimeoutSeconds ?? 0,
    ...(options.tls ? { tls: options.tls } : {}),
  });
  const host = listener.hostname.includes(":") ? `[${listener.hostname}]` : listener.hostname;
  const url = `${options.tls || listener.secure ? "https" : "http"}://${host}:${listener.port}`;
  log.info("listening", { url, hostname: listener.hostname, port: listener.port });

  let stopping: Promise<void> | undefined;
  const stop = () =>
    stopping ??= (async () => {
      log.info("shutting down: draining in-flight requests");
      await options.beforeDrain?.();
      const drained = await Promise.race([
        listener.close().then(() => true),
        new Promise<boolean>((r) => setTimeout(r, options.drainTimeoutMs ?? 10_000, false).unref?.()),
      ]);
      if (!drained) log.warn("drain timeout reached; closing with requests in flight");
      await options.onClose?.();
      log.info("stopped");
    })();

  if (options.handleSignals ?? true) exitOnStopSignals(log, stop);
  return { url, port: listener.port, stop };
}
