/**
 * Client-side routing with the History API under /admin/: `/admin/<page>?<params>`. Links are
 * real <a href> elements (open in a new tab, keyboard, screen readers all work); plain clicks are
 * handled here without a reload.
 */
import { historyRouter } from "../shared/history_router.ts";

export const BASE = "/admin";

export interface Route {
  page: string;
  params: URLSearchParams;
}

function current(): Route {
  const rest = location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length) : "";
  const page = rest.replace(/^\/+|\/+$/g, "").split("/")[0] ?? "";
  return { page, params: new URLSearchParams(location.search) };
}

export function href(page: string, params: Record<string, string | number | undefined> = {}): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== "") q.set(k, String(v));
  const s = q.toString();
  return `${BASE}/${page}${s ? `?${s}` : ""}`;
}

const router = historyRouter(BASE, current);
export const navigate: (to: string, replace?: boolean) => void = router.navigate;
export const useRoute: () => Route = router.useRoute;
