/**
 * A lighter load generator's HTTP/1.1 client: one kept-alive TCP connection per worker, each request
 * written as one buffer and its answer read by Content-Length (or chunks), as wrk or autocannon do. The write
 * benchmark at concurrency 32 runs on two cores shared with the server and PostgreSQL, and `fetch`
 * under Deno cost about 0.2 ms of CPU per request there, a fifth of a remember's whole cost
 * (docs/benchmarks.md, MEMPGW2). Every request is still a full HTTP request with its bearer token.
 */
import { connect, type Socket } from "node:net";
import { Buffer } from "node:buffer";

const HEADER_END = Buffer.from("\r\n\r\n");

export interface Answer {
  status: number;
  body: string;
}

export class KeepAliveClient {
  readonly #host: string;
  readonly #port: number;
  readonly #headers: string;
  #socket: Socket | undefined;
  #connecting: Promise<Socket> | undefined;
  #buffered: Buffer = Buffer.alloc(0);
  #busy = false;
  #waiting: { resolve(a: Answer): void; reject(e: Error): void } | undefined;

  /** `base`: http://host:port; `headers` are sent with every request (e.g. authorization). */
  constructor(base: string, headers: Record<string, string>) {
    const url = new URL(base);
    if (url.protocol !== "http:") throw new Error(`KeepAliveClient speaks plain HTTP only: ${base}`);
    this.#host = url.hostname;
    this.#port = Number(url.port || 80);
    this.#headers = Object.entries({ host: url.host, ...headers }).map(([k, v]) => `${k}: ${v}\r\n`).join("");
  }

  /** POSTs `body` as JSON; one request at a time per client. */
  async postJson(path: string, body: unknown): Promise<Answer> {
    if (this.#busy) throw new Error("KeepAliveClient: one request at a time");
    this.#busy = true;
    try {
      const socket = await this.#open();
      const payload = Buffer.from(JSON.stringify(body));
      const head = `POST ${path} HTTP/1.1\r\n${this.#headers}content-type: application/json\r\n` +
        `content-length: ${payload.length}\r\n\r\n`;
      const answer = new Promise<Answer>((resolve, reject) => (this.#waiting = { resolve, reject }));
      socket.write(Buffer.concat([Buffer.from(head), payload]));
      return await answer;
    } finally {
      this.#busy = false;
    }
  }

  close() {
    this.#socket?.destroy();
    this.#socket = undefined;
    this.#connecting = undefined;
  }

  #open(): Promise<Socket> {
    if (this.#socket) return Promise.resolve(this.#socket);
    this.#connecting ??= new Promise<Socket>((resolve, reject) => {
      const socket = connect({ host: this.#host, port: this.#port, noDelay: true }, () => {
        this.#socket = socket;
        resolve(socket);
      });
      socket.on("data", (chunk: Buffer) => this.#read(chunk));
      const fail = (err: Error) => {
        this.close();
        this.#buffered = Buffer.alloc(0);
        const waiting = this.#waiting;
        this.#waiting = undefined;
        waiting?.reject(err);
        reject(err);
      };
      socket.on("error", fail);
      socket.on("close", () => fail(new Error("connection closed by the server")));
    });
    return this.#connecting;
  }

  #read(chunk: Buffer) {
    this.#buffered = this.#buffered.length ? Buffer.concat([this.#buffered, chunk]) : chunk;
    const end = this.#buffered.indexOf(HEADER_END);
    if (end < 0) return;
    const head = this.#buffered.subarray(0, end).toString("latin1");
    const start = end + HEADER_END.length;
    const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
    const read = length
      ? this.#whole(start, Number(length[1]))
      : /\r\ntransfer-encoding:\s*chunked/i.test(head)
      ? this.#chunked(start)
      : new Error(`answer with neither Content-Length nor chunks: ${head.split("\r\n")[0]}`);
    if (read === undefined) return;
    const waiting = this.#waiting;
    this.#waiting = undefined;
    if (read instanceof Error) {
      this.close();
      waiting?.reject(read);
      return;
    }
    this.#buffered = this.#buffered.subarray(read.next);
    waiting?.resolve({ status: Number(head.slice(9, 12)), body: read.body });
  }

  /** The body of `length` bytes at `start`, or undefined until it has all come. */
  #whole(start: number, length: number) {
    if (this.#buffered.length < start + length) return undefined;
    return { body: this.#buffered.subarray(start, start + length).toString("utf8"), next: start + length };
  }

  /** A chunked body (no trailers) starting at `start`, or undefined until its last chunk has come. */
  #chunked(start: number) {
    const parts: Buffer[] = [];
    for (let at = start;;) {
      const line = this.#buffered.indexOf("\r\n", at);
      if (line < 0) return undefined;
      const size = parseInt(this.#buffered.subarray(at, line).toString("latin1"), 16);
      if (Number.isNaN(size)) return new Error("malformed chunk size");
      const data = line + 2;
      if (this.#buffered.length < data + size + 2) return undefined;
      if (size === 0) return { body: Buffer.concat(parts).toString("utf8"), next: data + 2 };
      parts.push(this.#buffered.subarray(data, data + size));
      at = data + size + 2;
    }
  }
}
