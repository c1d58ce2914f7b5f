/**
 * A client for OpenAI-compatible `/v1/embeddings` endpoints (OpenAI, Azure-style gateways,
 * vLLM, Ollama, LiteLLM, text-embeddings-inference...).
 *
 * The configured URL is the API base, like `https://api.openai.com/v1`; the client POSTs to
 * `<base>/embeddings` (a URL that already ends in `/embeddings` is used as is). Inputs are sent in
 * batches, vectors are re-ordered by `index`, checked for length and L2-normalised. 429 and 5xx
 * answers and network failures are retried twice. Error messages never contain the API key.
 */
import { type Logger, redactString, silentLogger } from "../../../internal/log/mod.ts";
import { type Embedder, EmbedderError, normalize } from "./embedder.ts";

export interface OpenAIEmbedderOptions {
  /** API base, e.g. `https://api.openai.com/v1`. */
  url: string;
  /** e.g. `text-embedding-3-small`. */
  model: string;
  /** Sent as `Authorization: Bearer <apiKey>` when set; local servers often need none. */
  apiKey?: string;
  /**
   * Vector length to request (models such as text-embedding-3 can shorten theirs). When unset, no
   * length is requested and the first response fixes it; every later vector must match.
   */
  dimensions?: number;
  /** Per request, including reading the answer. Default 30 s. */
  timeoutMs?: number;
  /** Inputs per request. Default 96. */
  batchSize?: number;
  fetch?: typeof globalThis.fetch;
  /** Retries are logged at warn. Default silent. */
  log?: Logger;
}

/** Attempts after the first, for 429, 5xx and network failures. */
const RETRIES = 2;
/** Backoff without Retry-After: 250 ms, then 500 ms. */
const BACKOFF_MS = 250;
/** A longer Retry-After is cut to this: embedding sits on the write path. */
const MAX_RETRY_AFTER_MS = 5_000;
/** How much of an error body goes into the message. */
const MAX_DETAIL = 300;

/**
 * @example
 * const embedder = new OpenAIEmbedder({
 *   url: "https://api.openai.com/v1",
 *   model: "text-embedding-3-small",
 *   apiKey: process.env.OPENAI_API_KEY,
 * });
 * const [vector] = await embedder.embed(["the user prefers pnpm"]);
 * embedder.id; // "openai:text-embedding-3-small:1536"
 */
export class OpenAIEmbedder implements Embedder {
  readonly #endpoint: string;
  /** The endpoint without any user:password, for messages. */
  readonly #shownEndpoint: string;
  readonly #model: string;
  readonly #apiKey: string | undefined;
  readonly #requestedDimensions: number | undefined;
  readonly #timeoutMs: number;
  readonly #batchSize: number;
  readonly #fetch: typeof globalThis.fetch;
  readonly #log: Logger;
  #dimensions: number | undefined;

  constructor(options: OpenAIEmbedderOptions) {
    const { url, model, apiKey, dimensions, timeoutMs = 30_000, batchSize = 96 } = options;
    let endpoint: URL;
    try {
      endpoint = new URL(url);
    } catch {
      throw new TypeError(`embeddings URL is not a valid URL: ${redactString(url)}`);
    }
    if (endpoint.protocol !== "http:" && endpoint.protocol !== "https:") {
      throw new TypeError(`embeddings URL must be http:// or https://, got ${endpoint.protocol}`);
    }
    const path = endpoint.pathname.replace(/\/+$/, "");
    endpoint.pathname = path.endsWith("/embeddings") ? path : `${path}/embeddings`;
    if (!model) throw new TypeError("embeddings model is required");
    positiveInt("dimensions", dimensions);
    positiveInt("timeoutMs", timeoutMs);
    positiveInt("batchSize", batchSize);
    this.#endpoint = endpoint.href;
    endpoint.username = "";
    endpoint.password = "";
    this.#shownEndpoint = endpoint.href;
    this.#model = model;
    this.#apiKey = apiKey || undefined;
    this.#requestedDimensions = dimensions;
    this.#dimensions = dimensions;
    this.#timeoutMs = timeoutMs;
    this.#batchSize = batchSize;
    this.#fetch = options.fetch ?? globalThis.fetch;
    this.#log = options.log ?? silentLogger;
  }

  /** `openai:<model>:<dimensions>`; without configured dimensions, final after the first embed. */
  get id(): string {
    return `openai:${this.#model}:${this.dimensions}`;
  }

  /** 0 until known: configured, or learnt from the first response. */
  get dimensions(): number {
    return this.#dimensions ?? 0;
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let start = 0; start < texts.length; start += this.#batchSize) {
      out.push(...await this.#embedBatch(texts.slice(start, start + this.#batchSize)));
    }
    return out;
  }

  async #embedBatch(input: string[]): Promise<Float32Array[]> {
    const body = JSON.stringify({
      model: this.#model,
      input,
      encoding_format: "float",
      ...(this.#requestedDimensions ? { dimensions: this.#requestedDimensions } : {}),
    });
    const headers: Record<string, string> = {
      "content-type": "application/json",
      accept: "application/json",
    };
    if (this.#apiKey) headers.authorization = `Bearer ${this.#apiKey}`;

    for (let attempt = 0;; attempt++) {
      let status: number, statusText: string, text: string, retryAfter: string | null;
      try {
        // The timeout covers the whole exchange: a server that sends headers and then stalls is caught too.
        const res = await this.#fetch(this.#endpoint, {
          method: "POST",
          headers,
          body,
          signal: AbortSignal.timeout(this.#timeoutMs),
        });
        ({ status, statusText } = res);
        retryAfter = res.headers.get("retry-after");
        text = await res.text();
      } catch (err) {
        const name = (err as { name?: unknown })?.name;
        if (name === "TimeoutError" || name === "AbortError") {
          throw this.#error(`timed out after ${this.#timeoutMs} ms`);
        }
        const reason = this.#scrub(err instanceof Error ? err.message : String(err));
        if (attempt < RETRIES) {
          await this.#pause(attempt, null, `network error: ${reason}`);
          continue;
        }
        throw this.#error(`${reason} (after ${attempt + 1} attempts)`);
      }

      if (status >= 200 && status < 300) return this.#parse(text, input.length);
      const detail = `HTTP ${status}${statusText ? ` ${statusText}` : ""}${this.#detail(text)}`;
      if ((status === 429 || status >= 500) && attempt < RETRIES) {
        await this.#pause(attempt, retryAfter, detail);
        continue;
      }
      throw this.#error(attempt > 0 ? `${detail} (after ${attempt + 1} attempts)` : detail);
    }
  }

  #parse(text: string, count: number): Float32Array[] {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw this.#error(`malformed response: not JSON${this.#detail(text)}`);
    }
    const data = (json as { data?: unknown })?.data;
    if (!Array.isArray(data)) throw this.#error("malformed response: no `data` array");
    if (data.length !== count) {
      throw this.#error(`malformed response: ${data.length} embeddings for ${count} inputs`);
    }
    const out = new Array<Float32Array | undefined>(count);
    data.forEach((item: { index?: unknown; embedding?: unknown }, position) => {
      // Some compatible servers leave out `index`; their data is then in input order.
      const index = item?.index ?? position;
      if (
        typeof index !== "number" || !Number.isInteger(index) || index < 0 || index >= count || out[index]
      ) {
        throw this.#error(`malformed response: bad or repeated index ${JSON.stringify(index)}`);
      }
      const embedding = item.embedding;
      if (!Array.isArray(embedding) || !embedding.every((x) => typeof x === "number" && Number.isFinite(x))) {
        throw this.#error(`malformed response: embedding ${index} is not an array of numbers`);
      }
      this.#dimensions ??= embedding.length;
      if (embedding.length !== this.#dimensions) {
        throw this.#error(
          `embedding ${index} has ${embedding.length} dimensions, expected ${this.#dimensions}`,
        );
      }
      const vector = Float32Array.from(embedding);
      if (!normalize(vector)) throw this.#error(`embedding ${index} is all zeros`);
      out[index] = vector;
    });
    return out as Float32Array[];
  }

  async #pause(attempt: number, retryAfter: string | null, reason: string): Promise<void> {
    const ms = retryDelayMs(attempt, retryAfter);
    this.#log.warn("embeddings request failed, retrying", {
      endpoint: this.#shownEndpoint,
      reason,
      attempt: attempt + 1,
      retryInMs: ms,
    });
    await new Promise((resolve) => setTimeout(resolve, ms));
  }

  /** ": <the server's message>" from an error body, shortened and scrubbed. */
  #detail(text: string): string {
    let message = text;
    try {
      const parsed = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown };
      const candidate = typeof parsed.error === "string"
        ? parsed.error
        : parsed.error?.message ?? parsed.message;
      if (typeof candidate === "string") message = candidate;
    } catch {
      // Not JSON: show the text itself.
    }
    message = this.#scrub(message.replace(/\s+/g, " ").trim());
    if (message.length > MAX_DETAIL) message = `${message.slice(0, MAX_DETAIL)}…`;
    return message ? `: ${message}` : "";
  }

  /**
   * Removes the API key, and anything shaped like a provider key, from text that came from the
   * network: servers echo keys back ("Incorrect API key provided: sk-...").
   */
  #scrub(text: string): string {
    let out = this.#apiKey ? text.split(this.#apiKey).join("[REDACTED]") : text;
    out = out.replace(/\b(sk|pk|rk)-[A-Za-z0-9_*.-]{6,}/g, "$1-[REDACTED]");
    return redactString(out);
  }

  #error(message: string): EmbedderError {
    return new EmbedderError(
      `embeddings request to ${this.#shownEndpoint} (model ${this.#model}) failed: ${message}`,
    );
  }
}

function positiveInt(name: string, value: number | undefined): void {
  if (value !== undefined && (!Number.isInteger(value) || value <= 0)) {
    throw new TypeError(`embeddings ${name} must be a positive integer, got ${value}`);
  }
}

/**
 * How long to wait before retry number `attempt + 1`: the server's Retry-After (seconds or an
 * HTTP date) when given, capped at 5 s; otherwise 250 ms, doubling.
 */
export function retryDelayMs(attempt: number, retryAfter: string | null, now = Date.now()): number {
  if (retryAfter !== null && retryAfter.trim() !== "") {
    const seconds = Number(retryAfter);
    const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(retryAfter) - now;
    if (Number.isFinite(ms)) return Math.min(Math.max(0, ms), MAX_RETRY_AFTER_MS);
  }
  return BACKOFF_MS * 2 ** attempt;
}
