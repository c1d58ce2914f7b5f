/**
 * The vault web app: sign-in, then the notes (sidebar with files, search, tags and backlinks; one or
 * two panes of up to four notes in tabs, each with editor and preview), account settings (/settings)
 * and, for admins, the admin panel (/admin).
 */
import { render } from "preact";
import { useCallback, useEffect, useMemo, useRef, useState } from "preact/hooks";
import {
  api,
  ApiError,
  currentUser,
  type Me,
  q,
  setSignedOutHandler,
  type SharedTree,
  type TreeEntry,
} from "./api.ts";
import { Ask, type AskRequest } from "./ask.tsx";
import { emptyCanvas, serializeCanvas } from "./canvas_model.ts";
import { FileTree } from "./file_tree.tsx";
import { GraphView } from "./graph_view.tsx";
import { coalesce, watchVault } from "./live.ts";
import {
  BacklinksPanel,
  layoutFrom,
  Panel,
  type PanelId,
  type PanelLayout,
  SearchBox,
  SearchPanel,
  SidebarSettings,
  SidebarTabs,
  TagsPanel,
} from "./panels.tsx";
import { pluginHost } from "./plugin_host.ts";
import {
  PluginPanelBody,
  PluginStatusBar,
  PluginTopbar,
  usePluginHost,
  withPluginPanels,
} from "./plugin_slots.tsx";
import { AdminPage, SettingsPage } from "./settings.tsx";
import { SignIn } from "./sign_in.tsx";
import { Switcher } from "./switcher.tsx";
import { TrashDialog } from "./trash.tsx";
import type { Tab } from "./tabs.ts";
import {
  closeEverywhere,
  closePane,
  EMPTY_LAYOUT,
  openInPane,
  openToSide,
  type PaneLayout,
  renameInPanes,
  setPaneCloser,
  shownTab,
  split,
} from "./panes.ts";
import { cachedPreferences, loadPreferences, type Preferences, savePreferences } from "./preferences.ts";
import { Workspace } from "./workspace.tsx";
import { SEARCH_TAG_EVENT } from "./preview.tsx";
import { TopBar } from "../shared/top_bar.tsx";
import { Loading } from "../shared/ui.tsx";

const navigate = (path: string) => {
  history.pushState(null, "", path);
  dispatchEvent(new PopStateEvent("popstate"));
};
/** A click on a link to `path`, followed without a reload. */
const go = (path: string) => (e: MouseEvent) => {
  e.preventDefault();
  navigate(path);
};

function usePath() {
  const [path, setPath] = useState(location.pathname);
  useEffect(() => {
    const update = () => setPath(location.pathname);
    addEventListener("popstate", update);
    return () => removeEventListener("popstate", update);
  }, []);
  return path;
}

/** Live events arriving within this long share one reload of the tree, tags and backlinks. */
const LIVE_RELOAD_MS = 250;

const baseName = (path: string) => path.slice(path.lastIndexOf("/") + 1);
const noteName = (path: string) => baseName(path).replace(/\.md$/, "");

function Notes({ me }: { me: Me }) {
  const [entries, setEntries] = useState<TreeEntry[]>([]);
  const [shared, setShared] = useState<SharedTree[]>([]);
  const [panes, setPanes] = useState<PaneLayout>(EMPTY_LAYOUT);
  // Loaded at sign-in (App); every change goes to the server.
  const prefs = useRef<Preferences>(cachedPreferences(me.id));
  const [layout, setLayoutState] = useState<PanelLayout[]>(() => layoutFrom(prefs.current.sidebar));
  const [ask, setAsk] = useState<AskRequest>();
  const [switcher, setSwitcher] = useState(false);
  const [layoutOpen, setLayoutOpen] = useState(false);
  const [trashOpen, setTrashOpen] = useState(false);
  const [query, setQuery] = useState("");
  // The sidebar's tab: Files unless the user picks another (or a search or a tag chip shows results).
  const [sideTab, setSideTab] = useState<PanelId>("files");
  const [refresh, setRefresh] = useState(0);
  const [remote, setRemote] = useState<Record<string, number>>({});
  const [toast, setToast] = useState<{ text: string; undo?: () => void }>();
  const [sidebarOpen, setSidebarOpen] = useState(true);
  const [lineNumbers, setLineNumbers] = useState(
    pluginHost.options.lineNumbers ?? prefs.current.lineNumbers ?? true,
  );
  const [live, setLive] = useState(prefs.current.live ?? true);
  const [showPreview, setShowPreview] = useState(prefs.current.preview ?? true);
  const savePref = (change: Preferences) => {
    prefs.current = { ...prefs.current, ...change };
    savePreferences(me.id, prefs.current);
  };
  const [graphOpen, setGraphOpen] = useState(false);

  // Loads overlap (live events, our own writes): only the newest request's answer is shown.
  const treeSeq = useRef(0);
  const loadTree = useCallback(() => {
    const seq = ++treeSeq.current;
    api<{ entries: TreeEntry[]; shared: SharedTree[] }>("/api/notes/tree").then((t) => {
      if (seq !== treeSeq.current) return;
      setEntries(t.entries);
      setShared(t.shared);
    }, (err) => setToast({ text: `Could not load the files: ${err.message}` }));
  }, []);
  useEffect(loadTree, []);

  const notes = useMemo(() => entries.filter((e) => e.kind === "note").map((e) => e.path), [entries]);
  const attachmentsRef = useRef<string[]>([]);
  attachmentsRef.current = useMemo(() => entries.filter((e) => e.kind === "attachment").map((e) => e.path), [
    entries,
  ]);
  const resolveAttachment = useCallback((name: string) => {
    const all = attachmentsRef.current;
    return all.find((p) => p === name) ?? all.find((p) => baseName(p) === name);
  }, []);
  const notesRef = useRef(notes);
  notesRef.current = notes;
  const noteNames = useCallback(() => [...new Set(notesRef.current.map(noteName))], []);
  const resolve = useCallback((target: string) => {
    const t = target.trim();
    const all = notesRef.current;
    const exact = all.find((p) => p === t || p === `${t}.md`);
    if (exact) return exact;
    const lower = t.toLowerCase().replace(/\.md$/, "");
    return all.find((p) => noteName(p).toLowerCase() === lower);
  }, []);

  const tabOf = (path: string, owner?: string): Tab => owner && owner !== me.id ? { path, owner } : { path };
  const open = useCallback((path: string, owner?: string) => {
    setPanes((l) => openInPane(l, tabOf(path, owner)));
    setGraphOpen(false);
  }, []);
  const openBeside = (path: string, owner?: string) => setPanes((l) => openToSide(l, tabOf(path, owner)));
  // The plugin API's ui.closePane closes the focused pane (panes.ts closeActivePane).
  useEffect(() => (setPaneCloser(() => setPanes((l) => closePane(l))), () => setPaneCloser(undefined)), []);

  // A note named in the address (?note=) opens at start.
  useEffect(() => {
    const params = new URLSearchParams(location.search);
    const note = params.get("note");
    if (note) open(note, params.get("owner") ?? undefined);
  }, []);

  // Live: the tree, tags and backlinks follow changes made elsewhere; an open note reloads.
  useEffect(() => {
    const reload = coalesce(() => {
      loadTree();
      setRefresh((r) => r + 1);
    }, LIVE_RELOAD_MS);
    const stop = watchVault((e) => {
      reload();
      if (e.kind === "note.updated" && e.path) setRemote((r) => ({ ...r, [e.path!]: (r[e.path!] ?? 0) + 1 }));
      if ((e.kind.endsWith(".renamed") || e.kind === "note.moved") && e.from && e.to && e.ownerId === me.id) {
        setPanes((l) => renameInPanes(l, e.from!, e.to!));
      }
    }, loadTree);
    return () => (reload.cancel(), stop());
  }, []);

  // Keyboard: Ctrl/Cmd+O opens the switcher, Ctrl/Cmd+\ splits the editor area.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === "o") {
        e.preventDefault();
        setSwitcher(true);
      }
      if ((e.ctrlKey || e.metaKey) && e.key === "\\") {
        e.preventDefault();
        setPanes(split);
      }
    };
    addEventListener("keydown", onKey);
    return () => removeEventListener("keydown", onKey);
  }, []);

  const fail = (err: unknown) => setToast({ text: err instanceof Error ? err.message : String(err) });
  const createNote = async (path: string, template?: string) => {
    const full = path.endsWith(".md") || path.endsWith(".canvas") ? path : `${path}.md`;
    try {
      if (template) await api("/api/notes/from-template", { method: "POST", body: { template, path: full } });
      else {await api("/api/notes", {
          method: "POST",
          body: {
            path: full,
            content: full.endsWith(".canvas") ? serializeCanvas(emptyCanvas()) : `# ${noteName(full)}\n\n`,
          },
        });}
      loadTree();
      open(full);
    } catch (err) {
      fail(err);
    }
  };
  const newNote = async (folder: string) => {
    const templates = await api<{ templates: string[] }>("/api/templates").then(
      (r) => r.templates,
      () => [] as string[],
    );
    setAsk({
      title: "New note",
      label: "Name",
      value: folder ? `${folder}/Untitled` : "Untitled",
      submit: "Create",
      ...(templates.length
        ? {
          choices: {
            label: "Template",
            options: [
              { value: "", label: "None" },
              ...templates.map((t) => ({ value: t, label: noteName(t) })),
            ],
          },
        }
        : {}),
      onSubmit: (name, template) => void createNote(name, template || undefined),
    });
  };
  const newCanvas = (folder: string) =>
    setAsk({
      title: "New canvas",
      label: "Name",
      value: folder ? `${folder}/Untitled` : "Untitled",
      submit: "Create",
      onSubmit: (name) => void createNote(name.endsWith(".canvas") ? name : `${name}.canvas`),
    });
  const newFolder = (folder: string) =>
    setAsk({
      title: "New folder",
      label: "Name",
      value: folder ? `${folder}/` : "",
      submit: "Create",
      onSubmit: (path) =>
        void api("/api/folders", { method: "POST", body: { path: path.replace(/\/+$/, "") } }).then(
          loadTree,
          fail,
        ),
    });
  const move = async (from: string, to: string) => {
    if (from === to) return;
    try {
      await api("/api/notes/move", { method: "POST", body: { from, to } });
      setPanes((l) => renameInPanes(l, from, to));
      loadTree();
      setRefresh((r) => r + 1);
    } catch (err) {
      fail(err);
    }
  };
  const rename = (path: string) =>
    setAsk({
      title: "Rename or move",
      label: "New path",
      value: path,
      submit: "Rename",
      onSubmit: (to) => void move(path, to),
    });
  const remove = async (path: string, kind: TreeEntry["kind"]) => {
    try {
      if (kind === "folder") {
        await api(`/api/folders${q({ path })}`, { method: "DELETE" });
        setToast({ text: `Deleted folder ${path}` });
      } else {
        const trashed = await api<{ id: string }>(`/api/notes${q({ path })}`, { method: "DELETE" });
        setPanes((l) => closeEverywhere(l, { path }));
        setToast({
          text: `Moved ${path} to the trash`,
          undo: () =>
            void api(`/api/trash/${encodeURIComponent(trashed.id)}/restore`, { method: "POST" }).then(
              loadTree,
              fail,
            ),
        });
      }
      loadTree();
    } catch (err) {
      if (err instanceof ApiError && err.code === "not_empty") fail(new Error(`${path} is not empty`));
      else fail(err);
    }
  };
  const daily = async () => {
    try {
      const r = await api<{ note: { path: string } }>("/api/daily", {
        method: "POST",
        body: { timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone },
      });
      loadTree();
      open(r.note.path);
    } catch (err) {
      fail(err);
    }
  };
  const setLayout = (l: PanelLayout[]) => {
    setLayoutState(l);
    savePref({ sidebar: l });
  };
  const toggle = (name: "lineNumbers" | "live" | "preview", value: boolean, set: (v: boolean) => void) => {
    set(value);
    savePref({ [name]: value });
  };
  const searchTag = (tag: string) => {
    setQuery(`tag:${tag}`);
    setSideTab("search");
    if (!layout.find((p) => p.id === "search")?.visible) {
      setLayout(layout.map((p) => (p.id === "search" ? { ...p, visible: true } : p)));
    }
  };
  const search = (text: string) => {
    setQuery(text);
    if (text.trim()) setSideTab("search");
  };
  // A tag chip in a preview searches for its tag.
  const searchTagRef = useRef(searchTag);
  searchTagRef.current = searchTag;
  useEffect(() => {
    const on = (e: Event) => searchTagRef.current(String((e as CustomEvent).detail ?? ""));
    addEventListener(SEARCH_TAG_EVENT, on);
    return () => removeEventListener(SEARCH_TAG_EVENT, on);
  }, []);
  const current = shownTab(panes.panes[panes.focused] ?? panes.panes[0]!);
  // The address names the note shown (a reload or a shared link opens it), following renames.
  useEffect(() => {
    const url = current ? `/${q({ note: current.path, owner: current.owner })}` : "/";
    if (location.pathname === "/" && location.pathname + location.search !== url) {
      history.replaceState(null, "", url);
    }
  }, [current?.path, current?.owner]);

  // Plugins: their sidebar panels join the layout; api.editor.setOption moves the line-number toggle;
  // api.ui.closePane closes the focused pane (panes.ts); the context follows the note shown.
  const plugins = usePluginHost();
  const shownLayout = withPluginPanels(layout, plugins.panels);
  const visiblePanels = shownLayout.filter((p) => p.visible);
  const activeTab = visiblePanels.some((p) => p.id === sideTab) ? sideTab : visiblePanels[0]?.id;
  useEffect(() => pluginHost.onEditorOption((name, v) => name === "lineNumbers" && setLineNumbers(v)), []);
  useEffect(() => {
    pluginHost.setNote(
      current ? { path: current.path, ...(current.owner ? { owner: current.owner } : {}) } : null,
    );
  }, [current?.path, current?.owner]);
  useEffect(() => () => pluginHost.setNote(null), []);

  const panels = {
    files: (
      <FileTree
        entries={entries}
        shared={shared}
        active={current?.owner ? undefined : current?.path}
        onOpen={open}
        onOpenToSide={openBeside}
        onNewNote={(f) => void newNote(f)}
        onNewFolder={newFolder}
        onNewCanvas={newCanvas}
        onRename={rename}
        onDelete={(p, k) => void remove(p, k)}
        onMove={(from, folder) => void move(from, folder ? `${folder}/${baseName(from)}` : baseName(from))}
      />
    ),
    search: <SearchPanel query={query} onOpen={(h) => open(h.path, h.ownerId)} />,
    tags: <TagsPanel refresh={refresh} onTag={searchTag} />,
    backlinks: (
      <BacklinksPanel
        {...(current ? { path: current.path } : {})}
        {...(current?.owner ? { owner: current.owner } : {})}
        refresh={refresh}
        onOpen={open}
      />
    ),
  };

  return (
    <div class={sidebarOpen ? "notes-layout" : "notes-layout sidebar-hidden"}>
      <aside class="sidebar" aria-label="Sidebar">
        <div class="sidebar-tools">
          <button type="button" onClick={() => setSwitcher(true)} title="Ctrl/Cmd+O">Quick switch</button>
          <button type="button" onClick={() => void daily()}>Today</button>
          <button type="button" onClick={() => setTrashOpen(true)}>Trash</button>
          <button type="button" aria-pressed={graphOpen} onClick={() => setGraphOpen(!graphOpen)}>
            Graph
          </button>
          <button
            type="button"
            class="icon-button"
            aria-label="Arrange sidebar panels"
            title="Arrange panels"
            onClick={() => setLayoutOpen(true)}
          >
            ⚙
          </button>
        </div>
        {visiblePanels.some((p) => p.id === "search") && <SearchBox query={query} setQuery={search} />}
        <SidebarTabs panels={visiblePanels.map((p) => p.id)} active={activeTab} onSelect={setSideTab} />
        {visiblePanels.map((p) => {
          const plugin = plugins.panels.find((x) => x.key === p.id);
          return (
            <Panel key={p.id} id={p.id} hidden={p.id !== activeTab}>
              {plugin ? <PluginPanelBody panel={plugin} /> : panels[p.id as keyof typeof panels]}
            </Panel>
          );
        })}
      </aside>
      <Workspace
        layout={panes}
        setLayout={setPanes}
        me={me}
        lineNumbers={lineNumbers}
        live={live}
        showPreview={showPreview}
        noteNames={noteNames}
        resolve={resolve}
        resolveAttachment={resolveAttachment}
        onLink={(p) => (notesRef.current.includes(p) ? open(p) : void createNote(p))}
        remote={remote}
        files={entries.filter((e) => e.kind === "note" || e.kind === "attachment").map((e) => e.path)}
        overlay={graphOpen && (
          <GraphView
            {...(current ? { current } : {})}
            refresh={refresh}
            onOpen={(p) => open(p, current?.owner)}
            onClose={() => setGraphOpen(false)}
          />
        )}
        toolbar={
          <>
            <button
              type="button"
              class="icon-button"
              aria-label={sidebarOpen ? "Hide sidebar" : "Show sidebar"}
              onClick={() => setSidebarOpen(!sidebarOpen)}
            >
              ☰
            </button>
            <span class="spacer" />
            {panes.panes.length > 1 && (
              <button
                type="button"
                class="small narrow-only"
                onClick={() => setPanes((l) => ({ ...l, focused: l.focused === 0 ? 1 : 0 }))}
              >
                Other pane
              </button>
            )}
            {panes.panes.length > 1
              ? (
                <button type="button" class="small" onClick={() => setPanes((l) => closePane(l))}>
                  Close pane
                </button>
              )
              : (
                <button type="button" class="small" title="Ctrl/Cmd+\" onClick={() => setPanes(split)}>
                  Split
                </button>
              )}
            <label class="toggle">
              <input
                type="checkbox"
                checked={showPreview}
                onChange={() => toggle("preview", !showPreview, setShowPreview)}
              />{" "}
              Preview
            </label>
            <label class="toggle">
              <input
                type="checkbox"
                checked={lineNumbers}
                onChange={() => toggle("lineNumbers", !lineNumbers, setLineNumbers)}
              />{" "}
              Line numbers
            </label>
            <label class="toggle">
              <input type="checkbox" checked={live} onChange={() => toggle("live", !live, setLive)} />{" "}
              Edit together
            </label>
          </>
        }
        footer={<PluginStatusBar />}
      />
      {ask && <Ask req={ask} onClose={() => setAsk(undefined)} />}
      {switcher && (
        <Switcher
          notes={notes}
          onOpen={(p) => open(p)}
          onCreate={(p) => void createNote(p)}
          onClose={() => setSwitcher(false)}
        />
      )}
      {trashOpen && <TrashDialog onClose={() => setTrashOpen(false)} onRestored={loadTree} />}
      {layoutOpen && (
        <SidebarSettings
          layout={shownLayout}
          onChange={setLayout}
          onClose={() => setLayoutOpen(false)}
        />
      )}
      {toast && (
        <div class="toast" role="status">
          {toast.text}
          {toast.undo && (
            <button type="button" onClick={() => (toast.undo!(), setToast(undefined))}>Undo</button>
          )}
          <button type="button" class="icon-button" aria-label="Dismiss" onClick={() => setToast(undefined)}>
            ×
          </button>
        </div>
      )}
    </div>
  );
}

function App() {
  const [me, setMe] = useState<Me | null>();
  const path = usePath();
  const load = useCallback(() => {
    // The user's preferences come with the sign-in, so the notes page starts with their layout.
    currentUser().then(async (u) => {
      if (u) await loadPreferences(u.id);
      setMe(u ?? null);
    }, () => setMe(null));
  }, []);
  useEffect(() => {
    setSignedOutHandler(() => setMe(null));
    load();
  }, []);
  // The enabled plugins load once someone is signed in (and go when they sign out).
  useEffect(() => {
    if (me) void pluginHost.start({ id: me.id, name: me.name });
    else if (me === null) pluginHost.stop();
  }, [me?.id]);
  if (me === undefined) return <Loading />;
  if (me === null) return <SignIn onSignedIn={load} />;
  const section = path === "/settings"
    ? "settings"
    : path === "/admin" && me.role === "admin"
    ? "admin"
    : "notes";
  return (
    <div class="app">
      <TopBar
        brand="vault"
        brandHref="/"
        onBrandClick={go("/")}
        label="Sections"
        links={[
          { href: "/", label: "Notes", current: section === "notes", onClick: go("/") },
          { href: "/settings", label: "Settings", current: section === "settings", onClick: go("/settings") },
          ...(me.role === "admin"
            ? [{ href: "/admin", label: "Admin", current: section === "admin", onClick: go("/admin") }]
            : []),
        ]}
      >
        <PluginTopbar />
        <span class="who-name">{me.name}</span>
        <button
          type="button"
          class="btn-small"
          onClick={async () => {
            await api("/api/auth/sign-out", { method: "POST", body: {} }).catch(() => {});
            history.replaceState(null, "", "/");
            setMe(null);
          }}
        >
          Sign out
        </button>
      </TopBar>
      {section === "settings"
        ? <SettingsPage me={me} />
        : section === "admin"
        ? <AdminPage me={me} />
        : <Notes me={me} />}
    </div>
  );
}

render(<App />, document.getElementById("app")!);
