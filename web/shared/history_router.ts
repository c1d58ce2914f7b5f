/**
 * Client-side routing with the History API under one base path (/admin, /ui). Links are real
 * <a href> elements (a new tab, the keyboard and screen readers all work); a plain click on a
 * same-origin link under the base, not a download, is followed here without a reload.
 *
 * @example
 * const router = historyRouter("/ui", () => location.pathname.slice(3).split("/"));
 * router.navigate("/ui/apps");
 * const segments = router.useRoute(); // in a component: re-renders on every navigation
 */
import { useEffect, useState } from "preact/hooks";

export interface HistoryRouter<T> {
  /** Goes to `to` (a path under the base, with its query), adding a history entry unless `replace`. */
  navigate(to: string, replace?: boolean): void;
  /** The route as `read` makes it of the location, kept current. */
  useRoute(): T;
}

export function historyRouter<T>(base: string, read: () => T): HistoryRouter<T> {
  const listeners = new Set<() => void>();
  const changed = () => {
    for (const l of listeners) l();
  };
  const navigate = (to: string, replace = false) => {
    if (replace) history.replaceState(null, "", to);
    else history.pushState(null, "", to);
    changed();
  };
  addEventListener("popstate", changed);
  document.addEventListener("click", (e) => {
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    const a = (e.target as Element | null)?.closest?.("a");
    if (!a || a.target || a.hasAttribute("download")) return;
    const url = new URL(a.href, location.href);
    if (url.origin !== location.origin || !url.pathname.startsWith(base)) return;
    e.preventDefault();
    navigate(url.pathname + url.search);
  });
  const useRoute = (): T => {
    const [route, setRoute] = useState(read);
    useEffect(() => {
      const update = () => setRoute(read());
      listeners.add(update);
      return () => void listeners.delete(update);
    }, []);
    return route;
  };
  return { navigate, useRoute };
}
