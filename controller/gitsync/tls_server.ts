/**
 * The manager's HTTPS listeners (admission webhook, metrics): HTTP/1.1 only unless `http2` is set
 * (`--enable-http2`, default off as in controller-runtime, whose managers turn HTTP/2 off because of the
 * HTTP/2 stream-reset attacks), and a certificate that can be replaced while serving (rotation), which
 * the next handshake uses.
 *
 * HTTP/1.1 is a TLS server handing its connections to an HTTP server, with ALPN offering only
 * `http/1.1`: Bun's `https.Server` cannot swap its certificate (no setSecureContext), its `tls.Server`
 * can. HTTP/2 is `http2.createSecureServer` with HTTP/1.1 allowed, which offers `h2` first.
 *
 * @example
 * const server = await startTlsServer({ host: "0.0.0.0", port: 9443, certificate, http2: false, handler });
 * server.setCertificate(renewed);   // later handshakes use it
 */
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createSecureServer, type Http2ServerRequest, type Http2ServerResponse } from "node:http2";
import type { AddressInfo, Socket } from "node:net";
import { createServer as createTlsServer, type Server as TlsNetServer } from "node:tls";

export interface ServingCertificate {
  /** PEM certificate (chain). */
  cert: string;
  /** PEM private key. */
  key: string;
}

/** Both request kinds share what handlers use: method, url, headers, the body stream, writeHead, end. */
export type TlsRequest = IncomingMessage | Http2ServerRequest;
export type TlsResponse = ServerResponse | Http2ServerResponse;

export interface TlsServerOptions {
  host: string;
  port: number;
  /** Without one yet the listener is bound but refuses handshakes until setCertificate. */
  certificate?: ServingCertificate;
  /** Offer HTTP/2 (ALPN h2) besides HTTP/1.1; default false. */
  http2?: boolean;
  handler: (req: TlsRequest, res: TlsResponse) => void;
}

export interface TlsServer {
  /** The bound port (useful with port 0). */
  port: number;
  /** Serves `certificate` from the next handshake on. */
  setCertificate(certificate: ServingCertificate): void;
  /** Stops listening and closes open connections. */
  close(): Promise<void>;
}

export async function startTlsServer(o: TlsServerOptions): Promise<TlsServer> {
  const tlsOptions = {
    ...(o.certificate ? { cert: o.certificate.cert, key: o.certificate.key } : {}),
    minVersion: "TLSv1.2" as const,
  };
  let server: TlsNetServer;
  if (o.http2) {
    server = createSecureServer({ ...tlsOptions, allowHTTP1: true }, o.handler);
  } else {
    const web = createHttpServer(o.handler);
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
  return {
    port: (server.address() as AddressInfo).port,
    setCertificate: (c) => server.setSecureContext({ minVersion: "TLSv1.2", cert: c.cert, key: c.key }),
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      }),
  };
}
