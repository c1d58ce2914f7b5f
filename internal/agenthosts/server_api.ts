/**
 * The installers' HTTP calls to their server: JSON in and out, a 15 s timeout, and one clear line
 * when the server cannot be reached. Errors name the server and the status, never a password,
 * cookie, token or key.
 */
import { CliError } from "../cli/mod.ts";

export interface Reply {
  status: number;
  headers: Headers;
  // deno-lint-ignore no-explicit-any
  body: any;
}

export interface CallOptions {
  /** How the server is named in "cannot reach <what> at <server>": "memsvc", "the vault". */
  what: string;
  headers?: Record<string, string>;
  bearer?: string;
  cookie?: string;
  body?: unknown;
  /** "manual": a redirect is an answer of its own (a sign-in must not follow one to another origin). */
  redirect?: RequestRedirect;
}

const TIMEOUT_MS = 15_000;

export async function callServer(
  server: string,
  method: string,
  path: string,
  o: CallOptions,
): Promise<Reply> {
  const headers: Record<string, string> = { ...o.headers };
  if (o.cookie) headers.cookie = o.cookie;
  if (o.bearer) headers.authorization = `Bearer ${o.bearer}`;
  if (o.body !== undefined) headers["content-type"] = "application/json";
  let res: Response;
  try {
    res = await fetch(`${server}${path}`, {
      method,
      headers,
      body: o.body === undefined ? undefined : JSON.stringify(o.body),
      signal: AbortSignal.timeout(TIMEOUT_MS),
      redirect: o.redirect,
    });
  } catch (err) {
    throw new CliError(`cannot reach ${o.what} at ${server}: ${(err as Error).message}`);
  }
  const text = await res.text();
  let body: unknown = undefined;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: the status alone names the failure
  }
  return { status: res.status, headers: res.headers, body };
}

/** Whether the server answers GET /health with {ok: true}; names what went wrong otherwise. */
export async function checkHealth(server: string, o: CallOptions): Promise<{ ok: boolean; error?: string }> {
  try {
    const reply = await callServer(server, "GET", "/health", o);
    return reply.status === 200 && reply.body?.ok === true
      ? { ok: true }
      : { ok: false, error: `HTTP ${reply.status}` };
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
}
