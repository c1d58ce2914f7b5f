/**
 * Client-side routing with the History API under /ui: /ui/apps, /ui/apps/<ns>/<name>,
 * /ui/apps/<ns>/<name>/graph, /ui/revisions/<ns>/<name>, /ui/repos. Links are real <a href>.
 */
import { useEffect, useState } from "preact/hooks";

export const BASE = "/ui";

export const segments = () =>
  location.pathname.slice(BASE.length).split("/").filter(Boolean).map(decodeURIComponent);

const listeners = new Set<() => void>();

export function navigate(to: string) {
  history.pushState(null, "", to);
  for (const l of listeners) l();
}

addEventListener("popstate", () => {
  for (const l of listeners) l();
});

document.addEventListener("click", (e) => {
  if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  const a = (e.target as Element | null)?.closest?.("a");
  if (!a || a.target) return;
  const url = new URL(a.href, location.href);
  if (url.origin !== location.origin || !url.pathname.startsWith(BASE)) return;
  e.preventDefault();
  navigate(url.pathname + url.search);
});

export function useSegments(): string[] {
  const [s, set] = useState(segments);
  useEffect(() => {
    const update = () => set(segments());
    listeners.add(update);
    return () => void listeners.delete(update);
  }, []);
  return s;
}

export const link = (...parts: string[]) => `${BASE}/${parts.map(encodeURIComponent).join("/")}`;
