/**
 * The listener of the manager's HTTPS servers (admission webhook, metrics), for internal/http's serve:
 * HTTP/1.1 only unless `http2` is set (`--enable-http2`, default off as in controller-runtime, whose
 * managers turn HTTP/2 off because of the HTTP/2 stream-reset attacks), and a certificate that can be
 * replaced while serving (rotation), which the next handshake uses. The runtime's own servers cannot do
 * either: Bun's cannot swap a certificate, so this is node:tls and node:http2 with requests handed to
 * the app as fetch Requests.
 *
 * HTTP/1.1 is a TLS server handing its connections to an HTTP server, with ALPN offering only
 * `http/1.1`: Bun's `https.Server` cannot swap its certificate (no setSecureContext), its `tls.Server`
 * can. HTTP/2 is `http2.createSecureServer` with HTTP/1.1 allowed, which offers `h2` first.
 *
 * @example
 * const tls = await bindTlsListener({ host: "0.0.0.0", port: 9443, certificate, http2: false });
 * const server = serve(app, { hostname: "0.0.0.0", port: tls.port, log, handleSignals: false, listen: tls.listen });
 * tls.setCertificate(renewed);   // later handshakes use it
 */
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createSecureServer, type Http2ServerRequest, type Http2ServerResponse } from "node:http2";
import type { AddressInfo, Socket } from "node:net";
import { createServer as createTlsServer, type Server as TlsNetServer } from "node:tls";
import type { ListenFactory } from "../../internal/http/mod.ts";
import type { PeerInfo } from "../../internal/platform/mod.ts";

export interface ServingCertificate {
  /** PEM certificate (chain). */
  cert: string;
  /** PEM private key. */
  key: string;
}

export interface TlsListenerOptions {
  host: string;
  port: number;
  /** Without one yet the listener is bound but refuses handshakes until setCertificate. */
  certificate?: ServingCertificate;
  /** Offer HTTP/2 (ALPN h2) besides HTTP/1.1; default false. */
  http2?: boolean;
}

export interface TlsListener {
  /** The bound port (useful with port 0). */
  readonly port: number;
  /** Serves `certificate` from the next handshake on. */
  setCertificate(certificate: ServingCertificate): void;
  /** For serve(): from here on the listener's requests go to the app. */
  listen: ListenFactory;
  /** Stops listening and closes open connections. */
  close(): Promise<void>;
}

type NodeRequest = IncomingMessage | Http2ServerRequest;
type NodeResponse = ServerResponse | Http2ServerResponse;
type FetchHandler = (req: Request, peer: PeerInfo) => Response | Promise<Response>;

/** Binds the listener; requests answer 503 until serve() hands it its app. */
export async function bindTlsListener(o: TlsListenerOptions): Promise<TlsListener> {
  let handler: FetchHandler = () => new Response("not serving yet\n", { status: 503 });
  const onRequest = (req: NodeRequest, res: NodeResponse) => void answer(req, res, handler);
  const tlsOptions = {
    ...(o.certificate ? { cert: o.certificate.cert, key: o.certificate.key } : {}),
    minVersion: "TLSv1.2" as const,
  };
  let server: TlsNetServer;
  if (o.http2) {
    server = createSecureServer({ ...tlsOptions, allowHTTP1: true }, onRequest);
  } else {
    const web = createHttpServer(onRequest);
    server = createTlsServer({ ...tlsOptions, ALPNProtocols: ["http/1.1"] }, (socket) => {
      web.emit("connection", socket);
    });
  }
  // Keep-alive connections (the API server keeps its own) would hold close() open until they time out.
  const sockets = new Set<Socket>();
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  // A client that fails the handshake is the client's problem; it must not stop the server.
  server.on("tlsClientError", () => {});
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(o.port, o.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      for (const s of sockets) s.destroy();
    });
  return {
    port,
    setCertificate: (c) => server.setSecureContext({ minVersion: "TLSv1.2", cert: c.cert, key: c.key }),
    listen: (app) => {
      handler = app;
      return { hostname: o.host, port, secure: true, close };
    },
    close,
  };
}

/** One node request through the fetch handler, the answer written back (bodies here are small). */
async function answer(req: NodeRequest, res: NodeResponse, handler: FetchHandler) {
  let response: Response;
  try {
    response = await handler(toRequest(req), { remoteAddr: req.socket?.remoteAddress ?? "" });
  } catch {
    response = new Response("bad request\n", { status: 400 });
  }
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  const body = Buffer.from(await response.arrayBuffer());
  if (res.destroyed) return;
  res.writeHead(response.status, headers);
  res.end(body);
}

function toRequest(req: NodeRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (name.startsWith(":") || value === undefined) continue; // HTTP/2 pseudo-headers
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  const method = req.method ?? "GET";
  const body = method === "GET" || method === "HEAD" ? null : new ReadableStream<Uint8Array>({
    start(controller) {
      req.on("data", (chunk: Buffer) => controller.enqueue(new Uint8Array(chunk)));
      req.on("end", () => controller.close());
      req.on("error", (err) => controller.error(err));
    },
    // The app read enough (a body over its limit): the rest is not wanted.
    cancel: () => void req.destroy(),
  });
  const url = req.url?.startsWith("/")
    ? `https://localhost${req.url}`
    : new URL(req.url ?? "/", "https://localhost");
  return new Request(url, {
    method,
    headers,
    body,
    duplex: "half",
  } as RequestInit);
}
