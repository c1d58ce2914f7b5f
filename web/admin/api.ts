/**
 * The dashboard's typed API client. Every non-2xx answer becomes an ApiError (errors.ts) carrying
 * the HTTP `status` and, when the server sent one, its machine-readable `code`.
 */
import { ApiError, type Issue } from "./errors.ts";

export { ApiError, friendlyMessage } from "./errors.ts";

/** The page's auth mode, from the <meta> the server writes. */
export type AuthMode = "user" | "bearer" | "none";
export function authMode(): AuthMode {
  const mode = document.querySelector<HTMLMetaElement>('meta[name="memsvc-auth-mode"]')?.content;
  return mode === "bearer" || mode === "none" ? mode : "user";
}

/**
 * In user mode, the origin this page should be opened at when it is open somewhere else (e.g.
 * localhost instead of 127.0.0.1): there the server refuses cookie-authenticated writes.
 */
export function expectedOrigin(): string | undefined {
  if (authMode() !== "user") return undefined;
  const meta = document.querySelector<HTMLMetaElement>('meta[name="memsvc-origins"]')?.content ?? "";
  const origins = meta.split(" ").filter(Boolean);
  return origins.length && !origins.includes(location.origin) ? origins[0] : undefined;
}

const BEARER_KEY = "memsvc.bearer";
/** In bearer mode the shared token lives in this tab's sessionStorage only. */
export const bearer = {
  get: () => sessionStorage.getItem(BEARER_KEY) ?? undefined,
  set: (token: string) => sessionStorage.setItem(BEARER_KEY, token),
  clear: () => sessionStorage.removeItem(BEARER_KEY),
};

/** Called when the server says the credential is gone (401), so the app can ask to sign in again. */
let onUnauthorized: () => void = () => {};
export function setUnauthorizedHandler(handler: () => void) {
  onUnauthorized = handler;
}

type Query = Record<string, string | number | undefined>;

export async function request<T>(
  method: string,
  path: string,
  options: { body?: unknown; query?: Query; quiet401?: boolean } = {},
): Promise<T> {
  const url = new URL(path, location.origin);
  for (const [k, v] of Object.entries(options.query ?? {})) {
    if (v !== undefined && v !== "") url.searchParams.set(k, String(v));
  }
  const headers: Record<string, string> = { accept: "application/json" };
  if (options.body !== undefined) headers["content-type"] = "application/json";
  const token = authMode() === "bearer" ? bearer.get() : undefined;
  if (token) headers.authorization = `Bearer ${token}`;
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      credentials: "same-origin",
    });
  } catch {
    throw new ApiError(0, "network error");
  }
  const text = await res.text();
  let body: unknown = undefined;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  if (!res.ok) {
    const b = (body ?? {}) as { error?: string; message?: string; code?: string; issues?: Issue[] };
    const err = new ApiError(
      res.status,
      b.error ?? b.message ?? (res.statusText || `HTTP ${res.status}`),
      b.code,
      Array.isArray(b.issues) ? b.issues : [],
      res.headers.get("x-request-id") ?? undefined,
    );
    if (res.status === 401 && !options.quiet401) onUnauthorized();
    throw err;
  }
  return body as T;
}

// ---- Shapes of the answers the dashboard uses ----

export interface SessionUser {
  id: string;
  email: string;
  name: string;
  role?: string | null;
}

export interface AdminUser extends SessionUser {
  banned?: boolean | null;
  banReason?: string | null;
  createdAt: string;
}

export interface Entry {
  id: string;
  content: string;
  metadata: Record<string, unknown>;
  source_type: string | null;
  captured_from: string | null;
  confidence: number;
  /** The project id, or null for a user-global entry. */
  project: string | null;
  namespace: string;
  content_hash: string;
  hit_count: number;
  created_at: string;
  updated_at: string;
  score?: number;
  depth?: number;
}

export interface Project {
  id: string;
  name: string;
  owner: { id: string; email: string };
  role: "owner" | "member";
  memberCount: number;
  createdAt: string;
  active: boolean;
}

export interface Member {
  userId: string;
  email: string;
  role: "owner" | "member";
  addedAt: string;
}

export interface ApiToken {
  tokenHash: string;
  label: string;
  createdAt?: string;
  lastUsedAt?: string | null;
}

export interface Neighbors {
  root: string;
  depth: number;
  nodes: Entry[];
  edges: { from: string; to: string; relation: string; weight: number }[];
}

export interface Bucket {
  minute: string;
  counts: Record<string, number>;
}

export interface TodayItem {
  at: string;
  kind: string;
  id: string;
  summary: string;
}

export interface Latency {
  count: number;
  p50: number;
  p95: number;
  p99: number;
}

export interface AdminMetrics {
  startedAt: string;
  uptimeSeconds: number;
  counters: Record<string, number>;
  gauges: Record<string, number | string>;
  rates: { requestsPerSecond: number; remembersPerSecond: number; searchesPerSecond: number };
  latency: { routes: Record<string, Latency>; tools: Record<string, Latency> };
  history: Bucket[];
}

// ---- Calls ----

export const api = {
  session: () => request<{ user: SessionUser } | null>("GET", "/api/auth/get-session", { quiet401: true }),
  signIn: (email: string, password: string) =>
    request<{ user: SessionUser }>("POST", "/api/auth/sign-in/email", {
      body: { email, password },
      quiet401: true,
    }),
  signOut: () => request<unknown>("POST", "/api/auth/sign-out", { body: {}, quiet401: true }),

  listUsers: () =>
    request<{ users: AdminUser[]; total: number }>("GET", "/api/auth/admin/list-users", {
      query: { limit: 500, sortBy: "createdAt", sortDirection: "asc" },
    }),
  createUser: (u: { email: string; name: string; password: string; role: string }) =>
    request<{ user: AdminUser }>("POST", "/api/auth/admin/create-user", { body: u }),
  setRole: (userId: string, role: string) =>
    request<unknown>("POST", "/api/auth/admin/set-role", { body: { userId, role } }),
  setPassword: (userId: string, newPassword: string) =>
    request<unknown>("POST", "/api/auth/admin/set-user-password", { body: { userId, newPassword } }),
  ban: (userId: string) => request<unknown>("POST", "/api/auth/admin/ban-user", { body: { userId } }),
  unban: (userId: string) => request<unknown>("POST", "/api/auth/admin/unban-user", { body: { userId } }),
  removeUser: (userId: string) =>
    request<unknown>("POST", "/api/auth/admin/remove-user", { body: { userId } }),

  health: () => request<Record<string, unknown>>("GET", "/v1/admin/health/deep"),
  metrics: () => request<AdminMetrics>("GET", "/v1/admin/metrics"),
  myHistory: (hours = 24) =>
    request<{ buckets: Bucket[] }>("GET", "/v1/me/metrics/history", { query: { hours } }),
  today: (hours = 24) =>
    request<{ hours: number; items: TodayItem[] }>("GET", "/v1/me/today", { query: { hours } }),

  recent: (q: { limit?: number; cursor?: string; source_type?: string; project?: string }) =>
    request<{ entries: Entry[]; nextCursor: string | null }>("GET", "/v1/recent", { query: q }),
  search: (body: { query: string; project?: string; limit?: number }) =>
    request<{ results: Entry[]; degraded?: boolean }>("POST", "/v1/search", { body }),
  remember: (body: { content: string; project?: string; source_type?: string; captured_from?: string }) =>
    request<{ id: string | null; deduplicated?: boolean; rejected?: string }>("POST", "/v1/remember", {
      body,
    }),
  entry: (id: string) => request<Entry>("GET", `/v1/memories/${encodeURIComponent(id)}`),
  updateEntry: (
    id: string,
    body: Partial<Pick<Entry, "content" | "metadata" | "source_type" | "captured_from" | "confidence">>,
  ) => request<Entry>("PUT", `/v1/memories/${encodeURIComponent(id)}`, { body }),
  forget: (id: string) => request<{ deleted: true }>("DELETE", `/v1/memories/${encodeURIComponent(id)}`),
  neighbors: (id: string, depth: number) =>
    request<Neighbors>("GET", `/v1/memories/${encodeURIComponent(id)}/neighbors`, { query: { depth } }),

  projects: () => request<{ projects: Project[] }>("GET", "/v1/projects"),
  createProject: (name: string) => request<Project>("POST", "/v1/projects", { body: { name } }),
  deleteProject: (ref: string) => request<unknown>("DELETE", `/v1/projects/${encodeURIComponent(ref)}`),
  members: (ref: string) =>
    request<{ members: Member[] }>("GET", `/v1/projects/${encodeURIComponent(ref)}/members`),
  share: (ref: string, email: string) =>
    request<Member>("POST", `/v1/projects/${encodeURIComponent(ref)}/members`, { body: { email } }),
  unshare: (ref: string, email: string) =>
    request<unknown>(
      "DELETE",
      `/v1/projects/${encodeURIComponent(ref)}/members/${encodeURIComponent(email)}`,
    ),
  setActive: (project: string) =>
    request<{ project: Project | null }>("PUT", "/v1/me/active-project", { body: { project } }),
  clearActive: () => request<{ project: null }>("DELETE", "/v1/me/active-project"),

  tokens: () => request<{ tokens: ApiToken[] }>("GET", "/v1/me/tokens"),
  createToken: (label: string) =>
    request<{ tokenHash: string; label: string; token: string }>("POST", "/v1/me/tokens", {
      body: { label },
    }),
  revokeToken: (tokenHash: string) =>
    request<{ deleted: true }>("DELETE", `/v1/me/tokens/${encodeURIComponent(tokenHash)}`),
};
