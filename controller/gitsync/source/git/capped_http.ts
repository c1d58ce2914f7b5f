/**
 * isomorphic-git's HTTP client, on web fetch (which Deno, Bun and Node all have), with the limits a
 * controller that fetches other people's repositories needs: a cap on the bytes one response may
 * carry (isomorphic-git buffers whole packfiles in memory), redirects followed only within the same
 * host (so credentials never travel to another one), and a timeout.
 */
import type { GitHttpRequest, GitHttpResponse, HttpClient } from "isomorphic-git";

export class GitTransferTooLarge extends Error {
  override name = "GitTransferTooLarge";
}

export interface CappedHttpOptions {
  /** Most bytes one response may carry; default 512 MiB. */
  maxBytes?: number;
  /** Per request; default 5 minutes. */
  timeoutMs?: number;
  /** Counts what was received, for the incremental-fetch figures. */
  onBytes?: (n: number) => void;
}

async function collect(body: AsyncIterableIterator<Uint8Array> | undefined): Promise<Uint8Array | undefined> {
  if (!body) return undefined;
  const parts: Uint8Array[] = [];
  for await (const p of body) parts.push(p);
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

export function cappedHttp(options: CappedHttpOptions = {}): HttpClient {
  const maxBytes = options.maxBytes ?? 512 * 1024 * 1024;
  const timeoutMs = options.timeoutMs ?? 5 * 60_000;
  return {
    async request(req: GitHttpRequest): Promise<GitHttpResponse> {
      const body = await collect(req.body);
      let url = req.url;
      const host = new URL(url).host;
      let res: Response | undefined;
      for (let hops = 0; hops <= 5; hops++) {
        res = await fetch(url, {
          method: req.method ?? "GET",
          headers: req.headers ?? {},
          ...(body ? { body: body as BodyInit } : {}),
          redirect: "manual",
          signal: AbortSignal.timeout(timeoutMs),
        });
        const location = res.headers.get("location");
        if (res.status < 300 || res.status >= 400 || !location) break;
        const next = new URL(location, url);
        if (next.host !== host) {
          throw new Error(`the Git server redirected to another host (${next.host}); refused`);
        }
        url = next.toString();
      }
      const response = res!;
      let received = 0;
      async function* stream(): AsyncIterableIterator<Uint8Array> {
        if (!response.body) return;
        const reader = response.body.getReader();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          received += value.length;
          options.onBytes?.(value.length);
          if (received > maxBytes) {
            await reader.cancel();
            throw new GitTransferTooLarge(`the Git server sent more than ${maxBytes} bytes in one response`);
          }
          yield value;
        }
      }
      const headers: Record<string, string> = {};
      response.headers.forEach((v, k) => (headers[k] = v));
      return {
        url,
        method: req.method ?? "GET",
        headers,
        body: stream(),
        statusCode: response.status,
        statusMessage: response.statusText,
      };
    },
  };
}
