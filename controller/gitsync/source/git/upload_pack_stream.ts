/**
 * The stateful Git transports (git:// and ssh) as an isomorphic-git HTTP client: isomorphic-git speaks
 * smart HTTP only, and its fetch is one GET of the ref advertisement and one POST of wants, haves and
 * `done`, which is exactly what `git-upload-pack` exchanges on one stateful connection (protocol v0).
 * So the GET opens the connection (git_protocol.ts, ssh_transport.ts say how) and answers with the
 * server's advertisement; the POST writes its body into the same connection and answers with the rest of
 * what the server sends (shallow lines, NAK, the pack) until it closes. Responses are capped like HTTP ones.
 */
import type { GitHttpRequest, GitHttpResponse, HttpClient } from "isomorphic-git";
import { GitTransferTooLarge } from "./capped_http.ts";

/** What an opener returns: a connection to a running `git-upload-pack`, as a Node duplex stream. */
export interface UploadPackStream {
  on(event: "data", listener: (chunk: Buffer) => void): unknown;
  on(event: "end" | "close", listener: () => void): unknown;
  on(event: "error", listener: (err: Error) => void): unknown;
  write(chunk: Uint8Array): unknown;
  /** Closes the stream and whatever carries it. */
  destroy(): unknown;
}

export interface UploadPackOptions {
  /** Connects and starts git-upload-pack for the repository. */
  open: () => Promise<UploadPackStream>;
  maxBytes?: number;
  onBytes?: (n: number) => void;
}

const encoder = new TextEncoder();

/** One pkt-line: four hex digits of length (themselves included), then the payload. */
export function pktLine(payload: string): Uint8Array {
  const bytes = encoder.encode(payload);
  return Buffer.concat([Buffer.from((bytes.length + 4).toString(16).padStart(4, "0")), bytes]);
}

/** A connection's incoming bytes, read as pkt-lines up to a flush, then as a plain stream. */
class Connection {
  private buffered = Buffer.alloc(0);
  private ended = false;
  private failure?: Error;
  private wake?: () => void;
  received = 0;

  constructor(readonly socket: UploadPackStream, maxBytes: number) {
    socket.on("data", (chunk: Buffer) => {
      this.received += chunk.length;
      if (this.received > maxBytes) {
        this.fail(new GitTransferTooLarge(`the git server sent more than ${maxBytes} bytes`));
        socket.destroy();
        return;
      }
      this.buffered = Buffer.concat([this.buffered, chunk]);
      this.wake?.();
    });
    const ended = () => {
      this.ended = true;
      this.wake?.();
    };
    socket.on("end", ended);
    socket.on("close", ended);
    socket.on("error", (err) => this.fail(err));
  }

  fail(err: Error) {
    this.failure ??= err;
    this.wake?.();
  }

  private async more(): Promise<boolean> {
    if (this.failure) throw this.failure;
    if (this.ended) return false;
    await new Promise<void>((resolve) => (this.wake = resolve));
    this.wake = undefined;
    if (this.failure) throw this.failure;
    return true;
  }

  /** The advertisement: pkt-lines up to and including the first flush, as received. */
  async advertisement(): Promise<Buffer> {
    let at = 0;
    for (;;) {
      while (this.buffered.length >= at + 4) {
        const length = parseInt(this.buffered.subarray(at, at + 4).toString(), 16);
        if (Number.isNaN(length)) throw new Error("the git server sent something that is not a pkt-line");
        if (length === 0) {
          const out = this.buffered.subarray(0, at + 4);
          this.buffered = this.buffered.subarray(at + 4);
          return out;
        }
        if (this.buffered.length < at + length) break;
        const payload = this.buffered.subarray(at + 4, at + length).toString();
        if (at === 0 && payload.startsWith("ERR ")) throw new Error(`git server: ${payload.slice(4).trim()}`);
        at += length;
      }
      if (!(await this.more())) {
        throw new Error("the git server closed the connection during the advertisement");
      }
    }
  }

  /** Everything else the server sends, until it closes the connection. */
  async *rest(): AsyncIterableIterator<Uint8Array> {
    for (;;) {
      if (this.buffered.length) {
        const chunk = this.buffered;
        this.buffered = Buffer.alloc(0);
        yield new Uint8Array(chunk);
      }
      if (!(await this.more()) && !this.buffered.length) return;
    }
  }
}

export function uploadPackClient(o: UploadPackOptions): HttpClient {
  const maxBytes = o.maxBytes ?? 512 * 1024 * 1024;
  let open: Connection | undefined;

  return {
    async request(req: GitHttpRequest): Promise<GitHttpResponse> {
      const url = new URL(req.url);
      if (req.method === "GET" && url.pathname.endsWith("/info/refs")) {
        open?.socket.destroy();
        open = new Connection(await o.open(), maxBytes);
        const advertisement = await open.advertisement().catch((err) => {
          open?.socket.destroy();
          throw err;
        });
        o.onBytes?.(advertisement.length);
        const body = Buffer.concat([
          pktLine("# service=git-upload-pack\n"),
          Buffer.from("0000"),
          advertisement,
        ]);
        return response(req, 200, "application/x-git-upload-pack-advertisement", oneChunk(body));
      }
      if (req.method === "POST" && url.pathname.endsWith("/git-upload-pack") && open) {
        const connection = open;
        open = undefined;
        for await (const part of req.body ?? []) connection.socket.write(part);
        return response(req, 200, "application/x-git-upload-pack-result", drain(connection, o.onBytes));
      }
      throw new Error(`git transport: unexpected ${req.method} ${url.pathname}`);
    },
  };
}

/** What the server sends after the negotiation, counted, the connection closed at the end. */
async function* drain(
  connection: Connection,
  onBytes?: (n: number) => void,
): AsyncIterableIterator<Uint8Array> {
  try {
    for await (const chunk of connection.rest()) {
      onBytes?.(chunk.length);
      yield chunk;
    }
  } finally {
    connection.socket.destroy();
  }
}

async function* oneChunk(bytes: Uint8Array): AsyncIterableIterator<Uint8Array> {
  yield bytes;
}

function response(
  req: GitHttpRequest,
  statusCode: number,
  contentType: string,
  body: AsyncIterableIterator<Uint8Array>,
): GitHttpResponse {
  return {
    url: req.url,
    method: req.method,
    statusCode,
    statusMessage: "OK",
    headers: { "content-type": contentType },
    body,
  };
}
