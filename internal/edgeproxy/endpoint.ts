/**
 * The HTTP endpoints edgectl reads besides Kubernetes (Prometheus, Jaeger): checked before use, with
 * credentials in the URL (`https://user:pass@prometheus`) moved to a Basic Authorization header and
 * left out of every message, so a password never reaches a terminal or a CI log.
 */
import { Buffer } from "node:buffer";
import { CliError } from "../cli/mod.ts";

export interface Endpoint {
  /** Base URL without credentials and without a trailing slash: safe to print. */
  url: string;
  /** Headers to send (Authorization when the URL carried credentials). */
  headers: Record<string, string>;
}

/** The endpoint of `text`, or an error message naming `flag` (secrets left out). */
export function parseEndpoint(text: string, flag: string): Endpoint | string {
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    return `${flag}: "${redact(text)}" is not a URL (e.g. http://localhost:9090)`;
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") {
    return `${flag}: "${redact(text)}" is not an http or https URL`;
  }
  const headers: Record<string, string> = {};
  if (u.username || u.password) {
    const user = decodeURIComponent(u.username);
    const pass = decodeURIComponent(u.password);
    headers.authorization = `Basic ${Buffer.from(`${user}:${pass}`).toString("base64")}`;
    u.username = "";
    u.password = "";
  }
  return { url: u.toString().replace(/\/+$/, ""), headers };
}

/** `text` with any `user:password@` removed, for messages about a URL that did not parse. */
function redact(text: string): string {
  return text.replace(/\/\/[^/@]*@/, "//");
}

/** How messages name a server behind an Endpoint, and the flag to check when it answers oddly. */
export interface ServerNames {
  /** Who could not be reached: "Prometheus", "the Jaeger query service". */
  server: string;
  /** What a JSON answer is: "a Prometheus API response". */
  response: string;
  /** The question an answer that is not JSON raises, naming the flag. */
  hint: string;
}

/**
 * A client of one HTTP API behind an Endpoint (Prometheus, Jaeger): requests with the endpoint's headers,
 * JSON accepted, given up after `timeoutMs`, and the answer parsed as JSON. That the server cannot be
 * reached, or answers something that is not JSON, is a CliError naming the server and what to check;
 * what the JSON says is the subclass's to read.
 */
export abstract class EndpointClient {
  /** Printable: credentials are never part of it. */
  readonly baseUrl: string;
  readonly #headers: Record<string, string>;

  constructor(endpoint: Endpoint, private readonly names: ServerNames, private readonly timeoutMs: number) {
    this.baseUrl = endpoint.url;
    this.#headers = endpoint.headers;
  }

  protected async fetchJson(
    path: string,
    init: { method?: string; headers?: Record<string, string>; body?: URLSearchParams } = {},
  ): Promise<{ res: Response; body: unknown }> {
    let res: Response;
    try {
      res = await fetch(`${this.baseUrl}${path}`, {
        ...init,
        headers: { ...this.#headers, ...init.headers, accept: "application/json" },
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (err) {
      const cause = (err as { cause?: { message?: string } }).cause?.message ?? (err as Error).message;
      throw new CliError(`cannot reach ${this.names.server} at ${this.baseUrl}: ${cause}`);
    }
    const text = await res.text();
    try {
      return { res, body: JSON.parse(text) };
    } catch {
      throw new CliError(
        `${this.baseUrl} answered ${res.status} ${res.statusText} without ${this.names.response}; ` +
          this.names.hint,
      );
    }
  }
}
