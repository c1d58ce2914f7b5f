/**
 * The vault API from the page: same-origin JSON with the session cookie, `X-Requested-With` on every
 * request (the vault's CSRF rule for cookie writes) and this tab's `X-Vault-Client-Id`, so the live
 * events our own writes cause can be told apart. A 401 means the session is over.
 */
import type { notesApi } from "../../server/vault/routes/notes.ts";
import { createClient } from "../shared/http.ts";
import type { ResponseOf } from "../shared/route_types.ts";

export { ApiError } from "../shared/api_error.ts";
import { ApiError } from "../shared/api_error.ts";

export const CLIENT_ID = `web-${crypto.randomUUID()}`;

let onSignedOut: () => void = () => {};
export function setSignedOutHandler(fn: () => void) {
  onSignedOut = fn;
}

const request = createClient({
  headers: () => ({ "X-Requested-With": "XMLHttpRequest", "X-Vault-Client-Id": CLIENT_ID }),
  onError: (err, path) => {
    if (err.status === 401 && !path.startsWith("/api/auth/sign-in")) onSignedOut();
  },
});

export function api<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  return request<T>(path, init);
}

/**
 * Saves a note or canvas of an open tab (the caller's own, or the owner's that shared it) if it is still
 * at `ifVersion` (a 409 ApiError otherwise); its new version.
 */
export async function saveNote(
  tab: { path: string; owner?: string },
  content: string,
  ifVersion: string,
): Promise<string> {
  const owner = tab.owner ? { owner: tab.owner } : {};
  const body = { path: tab.path, content, ifVersion, ...owner };
  return (await api<{ version: string }>("/api/notes", { method: "PUT", body })).version;
}

export const q = (params: Record<string, string | undefined>) =>
  "?" + new URLSearchParams(Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined));

type Tree = ResponseOf<typeof notesApi.tree>;
export type TreeEntry = Tree["entries"][number];
export type EntryKind = TreeEntry["kind"];
export type SharedTree = Tree["shared"][number];
export type Note = ResponseOf<typeof notesApi.read>;
export type SearchHit = ResponseOf<typeof notesApi.search>["hits"][number];
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
