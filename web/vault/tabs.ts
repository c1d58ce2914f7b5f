/** The editor's tab strip: at most MAX_TABS open notes; opening one more closes the oldest opened (FIFO). */
export const MAX_TABS = 4;

export interface Tab {
  path: string;
  owner?: string;
}

const same = (a: Tab, b: Tab) => a.path === b.path && (a.owner ?? "") === (b.owner ?? "");

/** The tabs after opening `tab`: an open one stays where it is; a new one goes last, evicting the first. */
export function openTab(tabs: readonly Tab[], tab: Tab): Tab[] {
  if (tabs.some((t) => same(t, tab))) return [...tabs];
  const next = [...tabs, tab];
  return next.length > MAX_TABS ? next.slice(next.length - MAX_TABS) : next;
}

export function closeTab(tabs: readonly Tab[], tab: Tab): Tab[] {
  return tabs.filter((t) => !same(t, tab));
}

/** After a rename or move: tabs of the old path (or below a moved folder) follow it. */
export function renameInTabs(tabs: readonly Tab[], from: string, to: string): Tab[] {
  return tabs.map((t) => {
    if (t.owner) return t;
    if (t.path === from) return { path: to };
    if (t.path.startsWith(from + "/")) return { path: to + t.path.slice(from.length) };
    return t;
  });
}
