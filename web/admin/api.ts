/**
 * The dashboard's typed API client over the shared fetch wrapper (web/shared/http.ts): every non-2xx
 * answer becomes an ApiError carrying the HTTP `status` and, when the server sent one, its `code`.
 * The answers' shapes are the server's own (imported as types, never retyped).
 */
import type { z } from "zod";
import type { ProjectMember, ProjectView } from "../../server/memsvc/projects/projects.ts";
import type {
  memoryEntry,
  neighborsResponse,
  recentResponse,
  rememberResult,
  searchResponse,
  UpdateBody,
} from "../../server/memsvc/memory/schemas.ts";
import type { TokenInfo } from "../../server/memsvc/tokens/api_tokens.ts";
import type { MemsvcMetrics } from "../../server/memsvc/metrics/registry.ts";
import type {
  adminMetricsResponse,
  deepHealthResponse,
  historyResponse,
  todayResponse,
} from "../../server/memsvc/metrics/schemas.ts";
import type { LatencyHistogram } from "../../internal/metrics/histogram.ts";
import { createClient, type Query } from "../shared/http.ts";

export { ApiError } from "../shared/api_error.ts";
export { friendlyMessage } from "./errors.ts";

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

const client = createClient({
  headers: (): Record<string, string> => {
    const token = authMode() === "bearer" ? bearer.get() : undefined;
    return token ? { authorization: `Bearer ${token}` } : {};
  },
  onError: (err) => err.status === 401 && onUnauthorized(),
});

export function request<T>(
  method: string,
  path: string,
  options: { body?: unknown; query?: Query; quiet401?: boolean } = {},
): Promise<T> {
  return client<T>(path, { method, body: options.body, query: options.query, quiet: options.quiet401 });
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

/** An entry; `score` in search results, `depth` in a neighbour graph. */
export type Entry = z.output<typeof memoryEntry> & { score?: number; depth?: number };

export type Project = ProjectView;
export type Member = ProjectMember;
export type ApiToken = TokenInfo;

export type { UpdateBody };
export type Neighbors = z.output<typeof neighborsResponse>;
type SearchResponse = z.output<typeof searchResponse>;
type RecentResponse = z.output<typeof recentResponse>;

export type Bucket = z.output<typeof historyResponse>["buckets"][number];
export type TodayItem = z.output<typeof todayResponse>["items"][number];
export type Latency = ReturnType<LatencyHistogram["summary"]>;
/** The server's schema keeps rates and latency open; their shapes come from the registry's own types. */
export type AdminMetrics = Omit<z.output<typeof adminMetricsResponse>, "rates" | "latency"> & {
  rates: ReturnType<MemsvcMetrics["rates"]>;
  latency: { routes: Record<string, Latency>; tools: Record<string, Latency> };
};
export type DeepHealth = z.output<typeof deepHealthResponse>;

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

  health: () => request<DeepHealth>("GET", "/v1/admin/health/deep"),
  metrics: () => request<AdminMetrics>("GET", "/v1/admin/metrics"),
  myHistory: (hours = 24) =>
    request<{ buckets: Bucket[] }>("GET", "/v1/me/metrics/history", { query: { hours } }),
  today: (hours = 24) =>
    request<{ hours: number; items: TodayItem[] }>("GET", "/v1/me/today", { query: { hours } }),

  recent: (q: { limit?: number; cursor?: string; source_type?: string; project?: string }) =>
    request<RecentResponse>("GET", "/v1/recent", { query: q }),
  search: (body: { query: string; project?: string; limit?: number }) =>
    request<SearchResponse>("POST", "/v1/search", { body }),
  remember: (body: { content: string; project?: string; source_type?: string; captured_from?: string }) =>
    request<z.output<typeof rememberResult>>("POST", "/v1/remember", {
      body,
    }),
  entry: (id: string) => request<Entry>("GET", `/v1/memories/${encodeURIComponent(id)}`),
  updateEntry: (id: string, body: UpdateBody) =>
    request<Entry>("PUT", `/v1/memories/${encodeURIComponent(id)}`, { body }),
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
