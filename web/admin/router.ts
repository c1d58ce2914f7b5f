/**
 * Client-side routing with the History API under /admin/: `/admin/<page>?<params>`. Links are
 * real <a href> elements (open in a new tab, keyboard, screen readers all work); plain clicks are
 * handled here without a reload.
 */
import { useEffect, useState } from "preact/hooks";

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

const listeners = new Set<() => void>();

export function href(page: string, params: Record<string, string | number | undefined> = {}): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== "") q.set(k, String(v));
  const s = q.toString();
  return `${BASE}/${page}${s ? `?${s}` : ""}`;
}

export function navigate(to: string, replace = false) {
  if (replace) history.replaceState(null, "", to);
  else history.pushState(null, "", to);
  for (const l of listeners) l();
}

addEventListener("popstate", () => {
  for (const l of listeners) l();
});

/** Same-origin links under /admin are followed without a reload. */
document.addEventListener("click", (e) => {
  if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  const a = (e.target as Element | null)?.closest?.("a");
  if (!a || a.target || a.hasAttribute("download")) return;
  const url = new URL(a.href, location.href);
  if (url.origin !== location.origin || !url.pathname.startsWith(BASE)) return;
  e.preventDefault();
  navigate(url.pathname + url.search);
});

export function useRoute(): Route {
  const [route, setRoute] = useState(current);
  useEffect(() => {
    const update = () => setRoute(current());
    listeners.add(update);
    return () => void listeners.delete(update);
  }, []);
  return route;
}
