/**
 * The editor area: one pane or two side by side (panes.ts), each with its tab strip and its notes.
 * A note open in both panes is edited by the first pane's NoteEditor; the second shows a linked view
 * (MirrorEditor), so there is one draft and one save state per note. On a narrow screen one pane
 * shows at a time, the focused one.
 */
import type { ComponentChildren } from "preact";
import type { Me } from "./api.ts";
import { CanvasEditor } from "./canvas_editor.tsx";
import { MirrorEditor } from "./mirror_editor.tsx";
import { NoteEditor } from "./note_editor.tsx";
import {
  closeTabInPane,
  focusPane,
  openInPane,
  ownerPane,
  type PaneLayout,
  sameTab,
  shownTab,
} from "./panes.ts";
import type { Tab } from "./tabs.ts";
import type { NoteViewProps } from "./editor_panes.tsx";

/** The width of the × at a tab's right end (style.css .tabs .tab::after). */
const CLOSE_WIDTH = 22;

const noteName = (path: string) => path.slice(path.lastIndexOf("/") + 1).replace(/\.md$/, "");

export interface WorkspaceProps extends NoteViewProps {
  layout: PaneLayout;
  setLayout: (f: (l: PaneLayout) => PaneLayout) => void;
  /** The bar above the panes (sidebar toggle, split, editor toggles). */
  toolbar: ComponentChildren;
  /** Under the panes (plugins' status bar). */
  footer?: ComponentChildren;
  me: Me;
  live: boolean;
  /** A wiki-link followed in a note (opens or creates it). */
  onLink: (path: string) => void;
  remote: Record<string, number>;
  /** Notes and attachments, for a canvas's file cards. */
  files?: string[];
  /** Shown instead of the panes (the graph view); the panes stay mounted, so nothing unsaved is lost. */
  overlay?: ComponentChildren;
}

export function Workspace(p: WorkspaceProps) {
  const { layout } = p;
  const two = layout.panes.length > 1;
  return (
    <main class="workspace">
      <div class="workspace-bar">{p.toolbar}</div>
      {p.overlay}
      <div class={two ? "pane-area two" : "pane-area"} hidden={!!p.overlay}>
        {layout.panes.map((pane, i) => {
          const shown = shownTab(pane);
          const focused = i === layout.focused;
          const label = two ? `Pane ${i + 1}` : "Notes";
          return (
            <div
              key={i}
              class={focused ? "pane focused" : "pane"}
              role="group"
              aria-label={label}
              onMouseDown={() => p.setLayout((l) => focusPane(l, i))}
              onFocusIn={() => p.setLayout((l) => focusPane(l, i))}
            >
              <div class="tabs" role="tablist" aria-label={two ? `Open notes, pane ${i + 1}` : "Open notes"}>
                {pane.tabs.map((t) => {
                  const selected = sameTab(t, shown);
                  const close = () => p.setLayout((l) => closeTabInPane(l, i, t));
                  // Only tabs in a tablist: the × is drawn by the tab itself (CSS) and a click on it
                  // closes the tab; the keyboard closes the focused tab with Delete.
                  return (
                    <button
                      type="button"
                      role="tab"
                      key={`${t.owner ?? ""}:${t.path}`}
                      class={selected ? "tab active" : "tab"}
                      aria-selected={selected}
                      // Named by the note alone: the drawn × is not part of its name.
                      aria-label={noteName(t.path)}
                      aria-keyshortcuts="Delete"
                      title={`${t.path} (Delete closes it)`}
                      onClick={(e) => {
                        const r = e.currentTarget.getBoundingClientRect();
                        if (e.detail > 0 && e.clientX > r.right - CLOSE_WIDTH) {
                          e.stopPropagation();
                          close();
                        } else p.setLayout((l) => openInPane(l, t, i));
                      }}
                      onKeyDown={(e) => {
                        if (e.key === "Delete") (e.preventDefault(), close());
                      }}
                    >
                      {noteName(t.path)}
                    </button>
                  );
                })}
              </div>
              {pane.tabs.length === 0 && (
                <div class="empty">
                  <p>Open a note from the sidebar, press Ctrl/Cmd+O, or start today's note.</p>
                </div>
              )}
              {pane.tabs.map((t) => (
                <PaneNote key={`${t.owner ?? ""}:${t.path}`} p={p} pane={i} tab={t} shown={shown} />
              ))}
            </div>
          );
        })}
      </div>
      {p.footer}
    </main>
  );
}

function PaneNote(
  { p, pane, tab, shown }: { p: WorkspaceProps; pane: number; tab: Tab; shown: Tab | undefined },
) {
  const common = {
    tab,
    hidden: !sameTab(tab, shown),
    lineNumbers: p.lineNumbers,
    showPreview: p.showPreview,
    noteNames: p.noteNames,
    resolve: p.resolve,
    resolveAttachment: p.resolveAttachment,
    onOpen: p.onLink,
  };
  // A canvas (JSON Canvas) has its own editor in each pane it is open in.
  if (tab.path.endsWith(".canvas")) {
    return (
      <CanvasEditor
        tab={tab}
        hidden={common.hidden}
        files={p.files ?? []}
        resolve={p.resolve}
        resolveAttachment={p.resolveAttachment}
        onOpen={p.onLink}
      />
    );
  }
  if (ownerPane(p.layout, tab) !== pane) return <MirrorEditor {...common} owner={tab.owner ?? p.me.id} />;
  return <NoteEditor {...common} me={p.me} live={p.live} remoteChange={p.remote[tab.path] ?? 0} />;
}
