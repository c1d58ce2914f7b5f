/**
 * The sidebar's other panels: full-text search (highlighted snippets), tags, backlinks of the open
 * note; and the sidebar layout (which panels show, in which order), a preference of the user's.
 */
import type { ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";
import { api, q, type SearchHit } from "./api.ts";
import { pluginHost } from "./plugin_host.ts";
import { Modal } from "../shared/modal.tsx";

export type BuiltInPanel = "files" | "search" | "tags" | "backlinks";
/** A plugin's panel is `plugin:<plugin id>:<panel id>` (api.ui.registerSidebarPanel). */
export type PanelId = BuiltInPanel | `plugin:${string}`;
export const PANEL_NAMES: Record<BuiltInPanel, string> = {
  files: "Files",
  search: "Search",
  tags: "Tags",
  backlinks: "Backlinks",
};
export interface PanelLayout {
  id: PanelId;
  visible: boolean;
}
/** A panel's heading: a built-in's name, or the title its plugin gave it. */
export const panelName = (id: PanelId) =>
  id.startsWith("plugin:")
    ? pluginHost.panels.find((p) => p.key === id)?.title ?? id
    : PANEL_NAMES[id as BuiltInPanel];
const DEFAULT_LAYOUT: PanelLayout[] = (["files", "search", "tags", "backlinks"] as const).map((id) => ({
  id,
  visible: true,
}));

/**
 * The layout from the user's saved preference (preferences.ts): panels this version does not know
 * are left out, new ones are added at the end, shown; plugins' panels keep their place (shown only while
 * their plugin is loaded).
 */
export function layoutFrom(saved: readonly { id: string; visible: boolean }[] | undefined): PanelLayout[] {
  if (!Array.isArray(saved)) return DEFAULT_LAYOUT;
  const known = saved.filter((p): p is PanelLayout => p.id in PANEL_NAMES || p.id.startsWith("plugin:"));
  const missing = DEFAULT_LAYOUT.filter((d) => !known.some((k) => k.id === d.id));
  return [...known, ...missing];
}

export function moveItem<T>(list: readonly T[], index: number, by: -1 | 1): T[] {
  const to = index + by;
  if (to < 0 || to >= list.length) return [...list];
  const next = [...list];
  [next[index], next[to]] = [next[to]!, next[index]!];
  return next;
}

/** One panel of the sidebar's tabs; the tab names it. */
export function Panel(
  { id, hidden, children }: { id: PanelId; hidden: boolean; children: ComponentChildren },
) {
  return (
    <section
      class="panel"
      role="tabpanel"
      id={`panel-${id}`}
      aria-labelledby={`side-tab-${id}`}
      data-panel={id}
      hidden={hidden}
    >
      {children}
    </section>
  );
}

/** The sidebar's tabs (Files, Search, Tags, Backlinks and plugins' panels, in the user's order). */
export function SidebarTabs(
  { panels, active, onSelect }: {
    panels: PanelId[];
    active: PanelId | undefined;
    onSelect: (id: PanelId) => void;
  },
) {
  const move = (from: number, by: number) => {
    const to = panels[(from + by + panels.length) % panels.length]!;
    onSelect(to);
    document.getElementById(`side-tab-${to}`)?.focus();
  };
  return (
    <div class="side-tabs" role="tablist" aria-label="Sidebar">
      {panels.map((id, i) => (
        <button
          key={id}
          type="button"
          role="tab"
          id={`side-tab-${id}`}
          aria-controls={`panel-${id}`}
          aria-selected={id === active}
          tabIndex={id === active ? 0 : -1}
          onClick={() => onSelect(id)}
          onKeyDown={(e) => {
            if (e.key === "ArrowRight" || e.key === "ArrowDown") (e.preventDefault(), move(i, 1));
            if (e.key === "ArrowLeft" || e.key === "ArrowUp") (e.preventDefault(), move(i, -1));
          }}
        >
          {panelName(id)}
        </button>
      ))}
    </div>
  );
}

/** The search box, at the top of the sidebar; typing shows the Search tab. */
export function SearchBox({ query, setQuery }: { query: string; setQuery: (q: string) => void }) {
  return (
    <input
      class="sidebar-search"
      type="search"
      aria-label="Search notes"
      placeholder="Search: words, &quot;phrases&quot;, tag:x"
      value={query}
      onInput={(e) => setQuery(e.currentTarget.value)}
    />
  );
}

const ENTITIES: Record<string, string> = {
  "&amp;": "&",
  "&lt;": "<",
  "&gt;": ">",
  "&quot;": '"',
  "&#39;": "'",
};
const decode = (s: string) => s.replace(/&(amp|lt|gt|quot|#39);/g, (e) => ENTITIES[e] ?? e);

/** The server's snippet (escaped text with <mark>) as elements: no HTML from the server enters the page. */
export function Snippet({ html }: { html: string }) {
  const parts = html.split(/(<mark>[\s\S]*?<\/mark>)/g);
  return (
    <span class="snippet">
      {parts.map((part, i) =>
        part.startsWith("<mark>")
          ? <mark key={i}>{decode(part.slice(6, -7))}</mark>
          : decode(part.replace(/<[^>]*>/g, ""))
      )}
    </span>
  );
}

/** Search results for the query typed in the SearchBox. */
export function SearchPanel({ query, onOpen }: { query: string; onOpen: (h: SearchHit) => void }) {
  const [hits, setHits] = useState<SearchHit[]>([]);
  const [error, setError] = useState("");
  useEffect(() => {
    // An empty box clears the results and any error the last query had.
    if (!query.trim()) return (setHits([]), setError(""));
    const t = setTimeout(() => {
      api<{ hits: SearchHit[] }>(`/api/search${q({ q: query, limit: "30" })}`).then(
        (r) => (setHits(r.hits), setError("")),
        (err) => setError(err.message),
      );
    }, 200);
    return () => clearTimeout(t);
  }, [query]);
  return (
    <div>
      {!query.trim() && <p class="muted">Type in the search box above: words, "phrases", tag:x.</p>}
      {error && <p class="error" role="alert">{error}</p>}
      <ul class="hits">
        {hits.map((h) => (
          <li key={h.ownerId + h.path}>
            <button type="button" class="hit" onClick={() => onOpen(h)}>
              <strong>{h.title || h.path}</strong>
              <Snippet html={h.snippet} />
            </button>
          </li>
        ))}
      </ul>
      {query.trim() && hits.length === 0 && !error && <p class="muted">Nothing found.</p>}
    </div>
  );
}

export function TagsPanel({ refresh, onTag }: { refresh: number; onTag: (tag: string) => void }) {
  const [tags, setTags] = useState<{ tag: string; notes: unknown }[]>([]);
  useEffect(() => {
    api<{ tags: { tag: string; notes: unknown }[] }>("/api/tags").then((r) => setTags(r.tags), () => {});
  }, [refresh]);
  if (tags.length === 0) return <p class="muted">No tags yet.</p>;
  return (
    <ul class="tags">
      {tags.map((t) => (
        <li key={t.tag}>
          <button type="button" class="tag" onClick={() => onTag(t.tag)}>
            #{t.tag} <span class="muted">{Array.isArray(t.notes) ? t.notes.length : String(t.notes)}</span>
          </button>
        </li>
      ))}
    </ul>
  );
}

export function BacklinksPanel(
  { path, owner, refresh, onOpen }: {
    path?: string;
    owner?: string;
    refresh: number;
    onOpen: (p: string) => void;
  },
) {
  const [links, setLinks] = useState<{ path: string; title: string }[]>([]);
  useEffect(() => {
    if (!path) return setLinks([]);
    api<{ backlinks: { path: string; title: string }[] }>(`/api/backlinks${q({ path, owner })}`).then(
      (r) => setLinks(r.backlinks),
      () => setLinks([]),
    );
  }, [path, owner, refresh]);
  if (!path) return <p class="muted">Open a note to see what links to it.</p>;
  if (links.length === 0) return <p class="muted">No note links here.</p>;
  return (
    <ul class="backlinks">
      {links.map((l) => (
        <li key={l.path}>
          <button type="button" class="name" onClick={() => onOpen(l.path)}>{l.title || l.path}</button>
        </li>
      ))}
    </ul>
  );
}

export function SidebarSettings(
  { layout, onChange, onClose }: {
    layout: PanelLayout[];
    onChange: (l: PanelLayout[]) => void;
    onClose: () => void;
  },
) {
  return (
    <Modal title="Sidebar panels" onClose={onClose}>
      <ul class="layout">
        {layout.map((p, i) => (
          <li key={p.id}>
            <label>
              <input
                type="checkbox"
                checked={p.visible}
                onChange={() =>
                  onChange(layout.map((x) => (x.id === p.id ? { ...x, visible: !x.visible } : x)))}
              />{" "}
              {panelName(p.id)}
            </label>
            <button
              type="button"
              class="icon-button"
              aria-label={`Move ${panelName(p.id)} up`}
              disabled={i === 0}
              onClick={() => onChange(moveItem(layout, i, -1))}
            >
              ↑
            </button>
            <button
              type="button"
              class="icon-button"
              aria-label={`Move ${panelName(p.id)} down`}
              disabled={i === layout.length - 1}
              onClick={() => onChange(moveItem(layout, i, 1))}
            >
              ↓
            </button>
          </li>
        ))}
      </ul>
      <div class="actions">
        <button type="button" class="primary" onClick={onClose}>Done</button>
      </div>
    </Modal>
  );
}
