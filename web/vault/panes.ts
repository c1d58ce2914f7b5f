/**
 * The editor area's panes: one, or two side by side. Each pane has its own tab strip (at most
 * MAX_TABS, first in first out, as tabs.ts does) and its shown tab; opens go to the focused pane.
 * Pure functions over a PaneLayout, so the rules are tested without a browser.
 */
import { closeTab, openTab, renameInTabs, type Tab } from "./tabs.ts";

export const MAX_PANES = 2;

export interface Pane {
  tabs: Tab[];
  /** The tab shown; when it is not among `tabs` any more, the last one is. */
  active?: Tab;
}

export interface PaneLayout {
  panes: Pane[];
  /** The pane that takes opens (and that closePane closes). */
  focused: number;
}

export const EMPTY_LAYOUT: PaneLayout = { panes: [{ tabs: [] }], focused: 0 };

export const sameTab = (a: Tab | undefined, b: Tab | undefined) =>
  !!a && !!b && a.path === b.path && (a.owner ?? "") === (b.owner ?? "");

/** The tab a pane shows. */
export function shownTab(pane: Pane): Tab | undefined {
  return pane.tabs.find((t) => sameTab(t, pane.active)) ?? pane.tabs.at(-1);
}

const withPane = (l: PaneLayout, index: number, pane: Pane): PaneLayout => ({
  ...l,
  panes: l.panes.map((p, i) => (i === index ? pane : p)),
});

/** Opens `tab` in pane `index` (the focused one by default), shows it there and focuses that pane. */
export function openInPane(l: PaneLayout, tab: Tab, index = l.focused): PaneLayout {
  const i = Math.min(index, l.panes.length - 1);
  const pane = l.panes[i]!;
  return { ...withPane(l, i, { tabs: openTab(pane.tabs, tab), active: tab }), focused: i };
}

/** Splits the editor area: a second pane beside the first, showing the same note (like the others do). */
export function split(l: PaneLayout): PaneLayout {
  if (l.panes.length >= MAX_PANES) return { ...l, focused: l.panes.length - 1 };
  const shown = shownTab(l.panes[l.focused]!);
  const pane: Pane = shown ? { tabs: [shown], active: shown } : { tabs: [] };
  return { panes: [...l.panes, pane], focused: l.panes.length };
}

/** Opens `tab` in the pane beside the focused one, splitting first when there is one pane. */
export function openToSide(l: PaneLayout, tab: Tab): PaneLayout {
  if (l.panes.length < MAX_PANES) {
    return openInPane({ panes: [...l.panes, { tabs: [] }], focused: l.focused }, tab, l.panes.length);
  }
  return openInPane(l, tab, l.focused === 0 ? 1 : 0);
}

/** Closes pane `index` (the focused one by default); the last pane is emptied instead. */
export function closePane(l: PaneLayout, index = l.focused): PaneLayout {
  if (l.panes.length <= 1) return EMPTY_LAYOUT;
  const panes = l.panes.filter((_, i) => i !== index);
  return { panes, focused: Math.min(l.focused > index ? l.focused - 1 : l.focused, panes.length - 1) };
}

/** Closes one tab of pane `index`; a second pane left without tabs closes. */
export function closeTabInPane(l: PaneLayout, index: number, tab: Tab): PaneLayout {
  const pane = l.panes[index];
  if (!pane) return l;
  const tabs = closeTab(pane.tabs, tab);
  if (tabs.length === 0 && l.panes.length > 1) return closePane(l, index);
  return withPane(l, index, { ...pane, tabs });
}

/** A note gone (trashed): its tabs close in every pane. */
export function closeEverywhere(l: PaneLayout, tab: Tab): PaneLayout {
  let next = l;
  for (let i = next.panes.length - 1; i >= 0; i--) {
    if (next.panes[i]!.tabs.some((t) => sameTab(t, tab))) next = closeTabInPane(next, i, tab);
  }
  return next;
}

/** After a rename or move of the user's own note or folder: every pane's tabs follow it. */
export function renameInPanes(l: PaneLayout, from: string, to: string): PaneLayout {
  return {
    ...l,
    panes: l.panes.map((p) => {
      const tabs = renameInTabs(p.tabs, from, to);
      const active = p.active ? renameInTabs([p.active], from, to)[0] : undefined;
      return active ? { tabs, active } : { tabs };
    }),
  };
}

/** Focuses pane `index` (a click in it), keeping everything else. */
export function focusPane(l: PaneLayout, index: number): PaneLayout {
  return index === l.focused || index >= l.panes.length ? l : { ...l, focused: index };
}

/** Where a note is shown first (pane order): that pane's editor saves it, any other mirrors it. */
export function ownerPane(l: PaneLayout, tab: Tab): number {
  return l.panes.findIndex((p) => p.tabs.some((t) => sameTab(t, tab)));
}

// The plugin API's ui.closePane (web/vault's plugin host) calls closeActivePane(); the notes page
// registers what it means while it is shown.
let closeFocused: (() => void) | undefined;
export function setPaneCloser(fn: (() => void) | undefined) {
  closeFocused = fn;
}
/** Closes the focused pane (the only one: closes its tabs). False when no notes page is shown. */
export function closeActivePane(): boolean {
  if (!closeFocused) return false;
  closeFocused();
  return true;
}
