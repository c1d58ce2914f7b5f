/**
 * The fetch wrapper of the four browser apps: same-origin JSON with the session cookie, a query
 * string from an object, the body as JSON, and every non-2xx answer (or none at all) thrown as an
 * ApiError carrying the status, the server's `code`, `issues` and request id. Each app makes its
 * client once with what is its own (extra headers, what a 401 means to it).
 *
 * @example
 * const request = createClient({ onError: (err) => err.status === 401 && showSignIn() });
 * const tree = await request<{ entries: TreeEntry[] }>("/api/notes/tree");
 * await request("/api/notes", { method: "POST", body: { path, content } });
 */
import { ApiError, type Issue } from "./api_error.ts";

export type Query = Record<string, string | number | boolean | undefined>;

export interface RequestOptions {
  method?: string;
  /** Sent as JSON. */
  body?: unknown;
  /** Appended as a query string; undefined and "" are left out. */
  query?: Query;
  headers?: Record<string, string>;
  /** Do not tell the client's onError (a sign-in's own 401 does not end a session). */
  quiet?: boolean;
}

export interface ClientOptions {
  /** Headers every request carries (a bearer token, a CSRF marker, a client id). */
  headers?: () => Record<string, string>;
  /** Sees each failed answer before it is thrown: a 401 usually ends the app's session. */
  onError?: (err: ApiError, path: string) => void;
  /** A non-2xx answer that still carries the data asked for (e.g. a 422 with per-item results). */
  answers?: (status: number, body: Record<string, unknown>) => boolean;
}

export type Request = <T>(path: string, options?: RequestOptions) => Promise<T>;

/** `path` with `query` appended (undefined and "" left out). */
export function withQuery(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== "") params.set(k, String(v));
  const s = params.toString();
  return s ? `${path}${path.includes("?") ? "&" : "?"}${s}` : path;
}

export function createClient(client: ClientOptions = {}): Request {
  return async <T>(path: string, options: RequestOptions = {}): Promise<T> => {
    const headers: Record<string, string> = {
      accept: "application/json",
      ...client.headers?.(),
      ...(options.body === undefined ? {} : { "content-type": "application/json" }),
      ...options.headers,
    };
    let res: Response;
    try {
      res = await fetch(withQuery(path, options.query), {
        method: options.method ?? "GET",
        headers,
        credentials: "same-origin",
        ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
      });
    } catch {
      const err = new ApiError(0, "network error");
      if (!options.quiet) client.onError?.(err, path);
      throw err;
    }
    const text = res.status === 204 ? "" : await res.text().catch(() => "");
    let parsed: unknown = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch { /* not JSON */ }
    const body = (parsed && typeof parsed === "object" ? parsed : {}) as Record<string, unknown>;
    // An empty answer (204) is {}; JSON null stays null (better-auth's "no session").
    if (res.ok || client.answers?.(res.status, body)) return (text ? parsed : {}) as T;
    const message = typeof body.error === "string"
      ? body.error
      : typeof body.message === "string"
      ? body.message
      : `HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ""}`;
    const err = new ApiError(res.status, message, {
      code: typeof body.code === "string" ? body.code : undefined,
      issues: Array.isArray(body.issues) ? body.issues as Issue[] : [],
      requestId: res.headers.get("x-request-id") ?? undefined,
      body,
    });
    if (!options.quiet) client.onError?.(err, path);
    throw err;
  };
}
