import { bunGlobal } from "./runtime.ts";
import { type BunSocket, bunWebSocketHandlers, denoUpgrade, type Upgrade } from "./websocket.ts";

/** What the listener knows about the connection a request arrived on. */
export interface PeerInfo {
  /** The TCP peer address (not a forwarded header), or "" when unknown. */
  remoteAddr: string;
  /** Accepts the request as a WebSocket (internal/platform/websocket.ts). */
  upgrade?: Upgrade;
}

export interface ListenOptions {
  hostname: string;
  /** 0 picks a free port; read the chosen one from `Listener.port`. */
  port: number;
  /** Seconds a connection may stay idle; 0 disables the limit (long-lived streams). */
  idleTimeoutSeconds?: number;
  /** Serve HTTPS with this certificate chain and key (PEM text). */
  tls?: { cert: string; key: string };
}

export interface Listener {
  readonly hostname: string;
  readonly port: number;
  /** Serves HTTPS (set by listeners whose TLS is their own, not ListenOptions.tls). */
  readonly secure?: boolean;
  /** Stops accepting connections and resolves once in-flight requests have finished. */
  close(): Promise<void>;
}

type Handler = (req: Request, peer: PeerInfo) => Response | Promise<Response>;

interface DenoServeGlobal {
  upgradeWebSocket(
    req: Request,
    options?: { idleTimeout?: number },
  ): { socket: WebSocket; response: Response };
  serve(
    options: {
      hostname: string;
      port: number;
      cert?: string;
      key?: string;
      onListen?: (addr: { hostname: string; port: number }) => void;
    },
    handler: (req: Request, info: { remoteAddr: { hostname: string } }) => Response | Promise<Response>,
  ): { addr: { hostname: string; port: number }; shutdown(): Promise<void>; finished: Promise<void> };
}

/** Starts an HTTP server on the current runtime. */
export function listen(handler: Handler, options: ListenOptions): Listener {
  const bun = bunGlobal();
  if (bun) {
    const server = bun.serve({
      hostname: options.hostname,
      port: options.port,
      // Bun caps idleTimeout at 255 s; 0 means no limit.
      idleTimeout: Math.min(options.idleTimeoutSeconds ?? 60, 255),
      ...(options.tls ? { tls: options.tls } : {}),
      websocket: bunWebSocketHandlers,
      fetch: (req, srv) =>
        handler(req, {
          remoteAddr: srv.requestIP(req)?.address ?? "",
          // After a successful upgrade Bun ignores the answer; the empty one keeps the types honest.
          upgrade: (handlers) =>
            srv.upgrade(req, { data: { handlers } satisfies BunSocket["data"] })
              ? new Response(null)
              : undefined,
        }),
    });
    return {
      hostname: options.hostname,
      port: server.port,
      close: () => server.stop(false),
    };
  }
  const deno = (globalThis as { Deno?: DenoServeGlobal }).Deno;
  if (deno) {
    const server = deno.serve(
      {
        hostname: options.hostname,
        port: options.port,
        ...(options.tls ? { cert: options.tls.cert, key: options.tls.key } : {}),
        onListen: () => {},
      },
      (req, info) => handler(req, { remoteAddr: info.remoteAddr.hostname, upgrade: denoUpgrade(deno, req) }),
    );
    return {
      hostname: options.hostname,
      port: server.addr.port,
      close: () => server.shutdown(),
    };
  }
  throw new Error("HTTP servers run on Deno (development) or Bun (compiled binaries), not on Node");
}
