/**
 * The vault API from the page: same-origin JSON with the session cookie, `X-Requested-With` on every
 * request (the vault's CSRF rule for cookie writes) and this tab's `X-Vault-Client-Id`, so the live
 * events our own writes cause can be told apart. A 401 means the session is over.
 */
export const CLIENT_ID = `web-${crypto.randomUUID()}`;

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: string | undefined,
    readonly body: Record<string, unknown>,
  ) {
    super(message);
  }
}

let onSignedOut: () => void = () => {};
export function setSignedOutHandler(fn: () => void) {
  onSignedOut = fn;
}

export async function api<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  const res = await fetch(path, {
    method: init.method ?? "GET",
    credentials: "same-origin",
    headers: {
      accept: "application/json",
      "X-Requested-With": "XMLHttpRequest",
      "X-Vault-Client-Id": CLIENT_ID,
      ...(init.body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  const text = res.status === 204 ? "" : await res.text();
  let body: Record<string, unknown> = {};
  try {
    body = text ? JSON.parse(text) : {};
  } catch { /* not JSON */ }
  if (!res.ok) {
    const message = typeof body.error === "string"
      ? body.error
      : typeof body.message === "string"
      ? body.message
      : `HTTP ${res.status}`;
    if (res.status === 401 && !path.startsWith("/api/auth/sign-in")) onSignedOut();
    throw new ApiError(res.status, message, typeof body.code === "string" ? body.code : undefined, body);
  }
  return body as T;
}

export const q = (params: Record<string, string | undefined>) =>
  "?" + new URLSearchParams(Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined));

export type EntryKind = "folder" | "note" | "canvas" | "attachment" | "file";
export interface TreeEntry {
  path: string;
  kind: EntryKind;
  size?: number;
  mtime: string;
}
export interface SharedTree {
  ownerId: string;
  ownerName: string;
  ownerEmail: string;
  path: string;
  permission: "read" | "read-write";
  entries: TreeEntry[];
}
export interface Note {
  path: string;
  content: string;
  version: string;
  size: number;
  mtime: string;
  owner: string;
}
export interface SearchHit {
  ownerId: string;
  path: string;
  title: string;
  tags: string[];
  snippet: string;
}
export interface Me {
  id: string;
  email: string;
  name: string;
  role: "admin" | "user";
}

/** Who is signed in, or undefined. */
export async function currentUser(): Promise<Me | undefined> {
  try {
    // get-session answers 200 (null) when signed out, so a first visit logs no failed request.
    const session = await api<{ user?: { name?: string } } | null>("/api/auth/get-session");
    if (!session?.user) return undefined;
    const me = await api<{ id: string; email: string; role: "admin" | "user" }>("/api/me");
    return { ...me, name: session.user.name ?? me.email };
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) return undefined;
    throw err;
  }
}
