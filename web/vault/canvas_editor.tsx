/**
 * The canvas editor for `.canvas` files (JSON Canvas 1.0): text cards (Markdown through the app's
 * preview), file cards (a note's preview or an image attachment of this vault), link cards (the URL
 * as a link: nothing is framed or fetched from another origin) and groups behind them, with edges
 * between sides (arrows, labels, colors). Drag a card to move it, its corner to resize it, a dot on
 * its side onto another card to connect them; double-click edits text in place; Ctrl/Cmd+Z undoes.
 * The background pans, the wheel zooms. Saves go through `PUT /api/notes` with the version read, so a
 * 409 shows the notes' conflict message; a file that is not valid JSON Canvas shows the server's
 * validator issues and is never written over.
 */
import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { api, ApiError, type Note, q, saveNote } from "./api.ts";
import {
  addEdge,
  addNode,
  anchor,
  type CanvasDoc,
  type CanvasEdge,
  type CanvasNode,
  commit,
  cssColor,
  fitView,
  fromServer,
  type History,
  moveNode,
  nearestSide,
  type NodeFields,
  removeEdge,
  removeNode,
  resizeNode,
  serializeCanvas,
  type Side,
  SIDES,
  undo,
  updateEdge,
  updateNode,
} from "./canvas_model.ts";
import { attachmentSrc } from "./markdown.ts";
import { Preview } from "./preview.tsx";

export interface CanvasEditorProps {
  tab: { path: string; owner?: string };
  hidden: boolean;
  /** Notes and attachments of the vault, for file cards. */
  files: string[];
  resolve: (target: string) => string | undefined;
  resolveAttachment: (name: string) => string | undefined;
  onOpen: (path: string) => void;
}

type SaveState =
  | { kind: "loading" | "saved" | "dirty" | "saving" }
  | { kind: "conflict"; currentVersion: string }
  | { kind: "error"; message: string }
  | { kind: "invalid"; issues: string[] };

interface View {
  x: number;
  y: number;
  k: number;
}
type Gesture =
  | { kind: "pan"; sx: number; sy: number; view: View }
  | { kind: "move"; id: string; sx: number; sy: number; x: number; y: number }
  | { kind: "resize"; id: string; sx: number; sy: number; w: number; h: number }
  | { kind: "connect"; id: string; side: Side };

const AUTOSAVE_MS = 800;
const IMAGE = /\.(png|jpe?g|gif|webp|svg)$/i;
const NORMAL: Record<Side, [number, number]> = { top: [0, -1], bottom: [0, 1], left: [-1, 0], right: [1, 0] };
const COLORS = [["", "No color"], ["1", "Red"], ["2", "Orange"], ["3", "Yellow"], ["4", "Green"], [
  "5",
  "Cyan",
], ["6", "Purple"]] as const;

const issueText = (body: Record<string, unknown>) =>
  Array.isArray(body.issues)
    ? body.issues.map((i: { path?: unknown[]; message?: string }) =>
      `${(i.path ?? []).join(".") || "(file)"}: ${i.message ?? ""}`
    )
    : [];

export function CanvasEditor(p: CanvasEditorProps) {
  const [h, setH] = useState<History>({ past: [], present: { nodes: [], edges: [] } });
  // A drag in progress shows here and becomes one undo step when it ends.
  const [draft, setDraft] = useState<CanvasDoc>();
  const draftRef = useRef<CanvasDoc | undefined>(undefined);
  const [state, setState] = useState<SaveState>({ kind: "loading" });
  const [view, setView] = useState<View>({ x: 40, y: 40, k: 1 });
  const [selected, setSelected] = useState<{ node?: string; edge?: string }>({});
  const [editing, setEditing] = useState<string>();
  const [pointer, setPointer] = useState<{ x: number; y: number }>();
  const [linkUrl, setLinkUrl] = useState("");
  const version = useRef("");
  const loaded = useRef<CanvasDoc | undefined>(undefined);
  const gesture = useRef<Gesture | undefined>(undefined);
  const stage = useRef<HTMLDivElement>(null);
  /** Whether the view has been fitted to the loaded canvas (once its stage has a size). */
  const fitted = useRef(false);
  const homeView = (d: CanvasDoc): View => {
    const r = stage.current?.getBoundingClientRect();
    return fitView(d, { width: r?.width ?? 0, height: r?.height ?? 0 });
  };
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const doc = draft ?? h.present;

  const load = async () => {
    try {
      const r = await api<{ canvas: Partial<CanvasDoc>; version: string }>(
        `/api/canvas${q({ path: p.tab.path, owner: p.tab.owner })}`,
      );
      version.current = r.version;
      loaded.current = fromServer(r.canvas);
      setH({ past: [], present: loaded.current });
      fitted.current = false;
      setState({ kind: "saved" });
    } catch (err) {
      if (err instanceof ApiError && err.code === "invalid_canvas") {
        setState({ kind: "invalid", issues: issueText(err.body) });
      } else setState({ kind: "error", message: err instanceof Error ? err.message : String(err) });
    }
  };
  useEffect(() => void load(), [p.tab.path, p.tab.owner]);
  // A canvas opens fitted to its content: as soon as it is loaded and its stage is shown (a hidden tab
  // has no size yet, so it fits when first shown).
  useEffect(() => {
    if (fitted.current || !loaded.current || p.hidden) return;
    const r = stage.current?.getBoundingClientRect();
    if (!r || r.width === 0) return;
    fitted.current = true;
    setView(fitView(loaded.current, r));
  });

  const save = async (ifVersion = version.current) => {
    clearTimeout(timer.current);
    const sent = h.present;
    setState({ kind: "saving" });
    try {
      version.current = await saveNote(p.tab, serializeCanvas(sent), ifVersion);
      loaded.current = sent;
      setState({ kind: hRef.current.present === sent ? "saved" : "dirty" });
    } catch (err) {
      if (err instanceof ApiError && err.status === 409) {
        setState({ kind: "conflict", currentVersion: String(err.body.currentVersion ?? "") });
      } else if (err instanceof ApiError && err.code === "invalid_canvas") {
        setState({ kind: "error", message: `Not saved: ${issueText(err.body).join("; ")}` });
      } else setState({ kind: "error", message: err instanceof Error ? err.message : String(err) });
    }
  };
  const hRef = useRef(h);
  hRef.current = h;
  const saveRef = useRef(save);
  saveRef.current = save;

  // Autosave after a pause; a conflict waits for the user's choice.
  useEffect(() => {
    if (!loaded.current || h.present === loaded.current) return;
    if (state.kind === "conflict" || state.kind === "invalid") return;
    if (state.kind !== "saving") setState({ kind: "dirty" });
    clearTimeout(timer.current);
    timer.current = setTimeout(() => void saveRef.current(), AUTOSAVE_MS);
  }, [h.present]);
  useEffect(() => () => clearTimeout(timer.current), []);

  const change = (next: CanvasDoc) => setH((old) => commit(old, next));

  /** The canvas coordinates of a pointer position. */
  const world = (e: { clientX: number; clientY: number }) => {
    const r = stage.current!.getBoundingClientRect();
    return { x: (e.clientX - r.left - view.x) / view.k, y: (e.clientY - r.top - view.y) / view.k };
  };
  const centre = () => {
    const r = stage.current!.getBoundingClientRect();
    return { x: (r.width / 2 - view.x) / view.k, y: (r.height / 2 - view.y) / view.k };
  };
  const zoomAt = (factor: number, at?: { x: number; y: number }) =>
    setView((v) => {
      const r = stage.current!.getBoundingClientRect();
      const sx = at?.x ?? r.width / 2, sy = at?.y ?? r.height / 2;
      const k = Math.min(4, Math.max(0.1, v.k * factor));
      return { k, x: sx - ((sx - v.x) * k) / v.k, y: sy - ((sy - v.y) * k) / v.k };
    });
  useEffect(() => {
    const el = stage.current;
    if (!el) return;
    const onWheel = (e: WheelEvent) => {
      e.preventDefault();
      const r = el.getBoundingClientRect();
      zoomAt(Math.exp(-e.deltaY * 0.0015), { x: e.clientX - r.left, y: e.clientY - r.top });
    };
    el.addEventListener("wheel", onWheel, { passive: false });
    return () => el.removeEventListener("wheel", onWheel);
  }, [state.kind === "invalid"]);

  const add = (node: Omit<NodeFields, "x" | "y">) => {
    const c = centre();
    const r = addNode(doc, {
      ...node,
      x: c.x - node.width / 2 + (doc.nodes.length % 5) * 20,
      y: c.y - node.height / 2 + (doc.nodes.length % 5) * 20,
    });
    change(r.doc);
    setSelected({ node: r.id });
    if (node.type === "text") setEditing(r.id);
  };
  const remove = () => {
    if (selected.node) change(removeNode(doc, selected.node));
    else if (selected.edge) change(removeEdge(doc, selected.edge));
    setSelected({});
  };

  // A gesture follows the pointer on the window (not pointer capture, which would take the
  // double-click that edits a card away from it).
  const start = (e: PointerEvent, g: Gesture) => {
    if (e.button !== 0) return;
    e.stopPropagation();
    gesture.current = g;
    const move = (ev: PointerEvent) => handlers.current.move(ev);
    const up = (ev: PointerEvent) => {
      removeEventListener("pointermove", move);
      removeEventListener("pointerup", up);
      removeEventListener("pointercancel", up);
      handlers.current.up(ev);
    };
    addEventListener("pointermove", move);
    addEventListener("pointerup", up);
    addEventListener("pointercancel", up);
  };
  const onPointerMove = (e: PointerEvent) => {
    const g = gesture.current;
    if (!g) return;
    // Events can come faster than renders: read the newest state from refs, not this closure.
    const present = hRef.current.present;
    const show = (d: CanvasDoc) => setDraft(draftRef.current = d);
    if (g.kind === "pan") {
      setView({ ...g.view, x: g.view.x + e.clientX - g.sx, y: g.view.y + e.clientY - g.sy });
    } else if (g.kind === "move") {
      show(moveNode(present, g.id, g.x + (e.clientX - g.sx) / view.k, g.y + (e.clientY - g.sy) / view.k));
    } else if (g.kind === "resize") {
      show(resizeNode(present, g.id, g.w + (e.clientX - g.sx) / view.k, g.h + (e.clientY - g.sy) / view.k));
    } else setPointer(world(e));
  };
  const onPointerUp = (e: PointerEvent) => {
    const g = gesture.current;
    gesture.current = undefined;
    if (!g) return;
    const moved = draftRef.current;
    draftRef.current = undefined;
    setDraft(undefined);
    if (moved) change(moved);
    if (g.kind === "connect") {
      setPointer(undefined);
      const el = document.elementFromPoint(e.clientX, e.clientY)?.closest<HTMLElement>("[data-node-id]");
      const to = doc.nodes.find((n) => n.id === el?.dataset.nodeId);
      if (!to || to.id === g.id) return;
      const r = addEdge(doc, {
        fromNode: g.id,
        fromSide: g.side,
        toNode: to.id,
        toSide: nearestSide(to, world(e)),
      });
      change(r.doc);
      setSelected({ edge: r.id });
    }
  };

  const handlers = useRef({ move: onPointerMove, up: onPointerUp });
  handlers.current = { move: onPointerMove, up: onPointerUp };

  const onKeyDown = (e: KeyboardEvent) => {
    const inField = (e.target as Element).closest("textarea, input, select");
    if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === "z" && !inField) {
      e.preventDefault();
      setH(undo);
      setSelected({});
    } else if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === "s") {
      e.preventDefault();
      void save();
    } else if (
      (e.key === "Delete" || e.key === "Backspace") && !inField && (selected.node || selected.edge)
    ) {
      e.preventDefault();
      remove();
    } else if (e.key.startsWith("Arrow") && !inField && selected.node) {
      // Cards move with the arrow keys too.
      const n = doc.nodes.find((n) => n.id === selected.node);
      if (!n) return;
      e.preventDefault();
      const step = e.shiftKey ? 50 : 10;
      const moves: Record<string, [number, number]> = {
        ArrowLeft: [-1, 0],
        ArrowRight: [1, 0],
        ArrowUp: [0, -1],
        ArrowDown: [0, 1],
      };
      const [dx, dy] = moves[e.key] ?? [0, 0];
      change(moveNode(doc, n.id, n.x + dx * step, n.y + dy * step));
    }
  };

  const node = selected.node ? doc.nodes.find((n) => n.id === selected.node) : undefined;
  const edge = selected.edge ? doc.edges.find((e) => e.id === selected.edge) : undefined;
  const stateText: Record<SaveState["kind"], string> = {
    loading: "Loading…",
    saved: "Saved",
    dirty: "Unsaved",
    saving: "Saving…",
    conflict: "Conflict",
    error: "Not saved",
    invalid: "Not valid",
  };
  // Groups first, so they sit behind the cards; otherwise the file's order is the stacking order.
  const ordered = [
    ...doc.nodes.filter((n) => n.type === "group"),
    ...doc.nodes.filter((n) => n.type !== "group"),
  ];
  const byId = new Map(doc.nodes.map((n) => [n.id, n]));

  return (
    <section class="canvas-pane" hidden={p.hidden} aria-label={`Canvas ${p.tab.path}`} onKeyDown={onKeyDown}>
      <div class="canvas-tools" role="toolbar" aria-label="Canvas">
        <button
          type="button"
          onClick={() =>
            add({ type: "text", text: "", width: 260, height: 120 })}
        >
          Add text
        </button>
        <select
          aria-label="Add a file card"
          value=""
          onChange={(e) => {
            const file = e.currentTarget.value;
            if (file) {
              add({ type: "file", file, width: 400, height: IMAGE.test(file) ? 300 : 400 });
            }
          }}
        >
          <option value="">Add file…</option>
          {p.files.map((f) => <option key={f} value={f}>{f}</option>)}
        </select>
        <form
          class="canvas-link-form"
          onSubmit={(e) => {
            e.preventDefault();
            if (!linkUrl.trim()) {
              return;
            }
            add({ type: "link", url: linkUrl.trim(), width: 400, height: 80 });
            setLinkUrl("");
          }}
        >
          <input
            aria-label="Link URL"
            placeholder="https://…"
            value={linkUrl}
            onInput={(e) =>
              setLinkUrl(e.currentTarget.value)}
          />
          <button type="submit">Add link</button>
        </form>
        <button
          type="button"
          onClick={() =>
            add({ type: "group", label: "Group", width: 600, height: 400 })}
        >
          Add group
        </button>
        {(node || edge) && (
          <select
            aria-label="Color"
            value={(node ?? edge)!.color ?? ""}
            onChange={(e) => {
              const color = e.currentTarget.value || undefined;
              change(
                node ? updateNode(doc, node.id, { color }) : updateEdge(doc, edge!.id, { color }),
              );
            }}
          >
            {COLORS.map(([v, name]) => <option key={v} value={v}>{name}</option>)}
          </select>
        )}
        {edge && (
          <input
            aria-label="Edge label"
            placeholder="Label"
            value={edge.label ?? ""}
            onChange={(e) => change(updateEdge(doc, edge.id, { label: e.currentTarget.value || undefined }))}
          />
        )}
        <button type="button" disabled={!node && !edge} onClick={remove}>Delete</button>
        <button
          type="button"
          disabled={h.past.length === 0}
          onClick={() =>
            setH(undo)}
        >
          Undo
        </button>
        <button type="button" aria-label="Zoom in" title="Zoom in" onClick={() => zoomAt(1.25)}>+</button>
        <button type="button" aria-label="Zoom out" title="Zoom out" onClick={() => zoomAt(0.8)}>−</button>
        <button type="button" onClick={() => setView(homeView(doc))}>Reset view</button>
        <span class="spacer" />
        <span class={`save-state ${state.kind}`} role="status">{stateText[state.kind]}</span>
        <button type="button" onClick={() => void save()} disabled={state.kind !== "dirty"}>Save</button>
      </div>
      {state.kind === "conflict" && (
        <div class="banner conflict" role="alert">
          Someone else saved this note since you opened it. Your text is still here, not saved.
          <button
            type="button"
            onClick={() => void save(state.currentVersion)}
          >
            Save mine over theirs
          </button>
          <button type="button" onClick={() => void load()}>Load theirs (drops mine)</button>
        </div>
      )}
      {state.kind === "error" && <div class="banner conflict" role="alert">{state.message}</div>}
      {state.kind === "invalid"
        ? (
          <div class="banner conflict" role="alert">
            This file is not valid JSON Canvas, so it is not shown and will not be written over:
            <ul class="canvas-issues">
              {state.issues.map((i) => <li key={i}>{i}</li>)}
            </ul>
          </div>
        )
        : (
          <div
            ref={stage}
            class="canvas-stage"
            // No native drag of a card's text or image: it would cancel our pointer gesture.
            onDragStart={(e) => e.preventDefault()}
            onPointerDown={(e) => {
              (document.activeElement as HTMLElement | null)?.blur?.(); // ends an edit in place
              setSelected({});
              start(e, { kind: "pan", sx: e.clientX, sy: e.clientY, view });
            }}
          >
            <div
              class="canvas-world"
              data-transform={`${view.x.toFixed(1)},${view.y.toFixed(1)},${view.k.toFixed(3)}`}
              style={{ transform: `translate(${view.x}px, ${view.y}px) scale(${view.k})` }}
            >
              {ordered.map((n) => (
                <CanvasCard
                  key={n.id}
                  node={n}
                  selected={selected.node === n.id}
                  editing={editing === n.id}
                  props={p}
                  onSelect={() => setSelected({ node: n.id })}
                  onEdit={() => (n.type === "text" || n.type === "group") && setEditing(n.id)}
                  onEdited={(change2) => {
                    setEditing(undefined);
                    if (Object.entries(change2).some(([k, v]) => n[k] !== v)) {
                      change(
                        updateNode(doc, n.id, change2),
                      );
                    }
                  }}
                  onMoveStart={(e) => {
                    setSelected({ node: n.id });
                    start(e, { kind: "move", id: n.id, sx: e.clientX, sy: e.clientY, x: n.x, y: n.y });
                  }}
                  onResizeStart={(e) =>
                    start(e, {
                      kind: "resize",
                      id: n.id,
                      sx: e.clientX,
                      sy: e.clientY,
                      w: n.width,
                      h: n.height,
                    })}
                  onConnectStart={(e, side) => {
                    setPointer(anchor(n, side));
                    start(e, { kind: "connect", id: n.id, side });
                  }}
                />
              ))}
              <svg class="canvas-edges" aria-hidden="true">
                {doc.edges.map((e) => {
                  const from = byId.get(e.fromNode), to = byId.get(e.toNode);
                  if (!from || !to) return null;
                  return (
                    <CanvasEdgeLine
                      key={e.id}
                      edge={e}
                      from={from}
                      to={to}
                      selected={selected.edge === e.id}
                      onSelect={(ev) => (ev.stopPropagation(), setSelected({ edge: e.id }))}
                    />
                  );
                })}
                {pointer && gesture.current?.kind === "connect" && (() => {
                  const g = gesture.current;
                  const from = byId.get(g.id);
                  if (!from) return null;
                  const a = anchor(from, g.side);
                  return <line class="canvas-pending-edge" x1={a.x} y1={a.y} x2={pointer.x} y2={pointer.y} />;
                })()}
              </svg>
            </div>
          </div>
        )}
    </section>
  );
}

function CanvasCard(c: {
  node: CanvasNode;
  selected: boolean;
  editing: boolean;
  props: CanvasEditorProps;
  onSelect: () => void;
  onEdit: () => void;
  onEdited: (change: Partial<CanvasNode>) => void;
  onMoveStart: (e: PointerEvent) => void;
  onResizeStart: (e: PointerEvent) => void;
  onConnectStart: (e: PointerEvent, side: Side) => void;
}) {
  const n = c.node;
  const color = cssColor(n.color);
  const name = n.type === "text"
    ? `Text card: ${(n.text ?? "").slice(0, 40) || "empty"}`
    : n.type === "file"
    ? `File card: ${n.file}`
    : n.type === "link"
    ? `Link card: ${n.url}`
    : `Group: ${n.label ?? ""}`;
  let body: ComponentChildren;
  if (c.editing && n.type === "text") {
    body = (
      <textarea
        class="canvas-text-edit"
        aria-label="Card text"
        defaultValue={n.text ?? ""}
        ref={(el) => el?.focus()}
        onPointerDown={(e) => e.stopPropagation()}
        onBlur={(e) => c.onEdited({ text: e.currentTarget.value })}
        onKeyDown={(e) => e.key === "Escape" && e.currentTarget.blur()}
      />
    );
  } else if (n.type === "text") {
    body = (
      <Preview
        content={n.text ?? ""}
        resolve={c.props.resolve}
        resolveAttachment={c.props.resolveAttachment}
        onOpen={c.props.onOpen}
        nested
        {...(c.props.tab.owner ? { owner: c.props.tab.owner } : {})}
      />
    );
  } else if (n.type === "file") body = <FileCardBody file={n.file ?? ""} props={c.props} />;
  else if (n.type === "link") {
    const url = n.url ?? "";
    body = /^https?:\/\//i.test(url)
      ? <a class="canvas-link" href={url} target="_blank" rel="noopener noreferrer nofollow">{url}</a>
      : <span class="canvas-link">{url}</span>;
  }
  return (
    <div
      class={`canvas-node ${n.type}${c.selected ? " selected" : ""}`}
      data-node-id={n.id}
      tabIndex={0}
      aria-label={name}
      style={{
        left: `${n.x}px`,
        top: `${n.y}px`,
        width: `${n.width}px`,
        height: `${n.height}px`,
        ...(color ? { borderColor: color } : {}),
      }}
      onFocus={c.onSelect}
      onPointerDown={(e) => {
        // Links and a text being edited take their own clicks.
        if ((e.target as Element).closest("a, textarea, input")) return e.stopPropagation();
        c.onMoveStart(e);
      }}
      onDblClick={c.onEdit}
    >
      {n.type === "group"
        ? (c.editing
          ? (
            <input
              class="canvas-group-label"
              aria-label="Group label"
              defaultValue={n.label ?? ""}
              ref={(el) => el?.focus()}
              onPointerDown={(e) => e.stopPropagation()}
              onBlur={(e) => c.onEdited({ label: e.currentTarget.value })}
              onKeyDown={(e) => (e.key === "Enter" || e.key === "Escape") && e.currentTarget.blur()}
            />
          )
          : <div class="canvas-group-label">{n.label ?? ""}</div>)
        : <div class="canvas-node-body">{body}</div>}
      {SIDES.map((side) => (
        <span
          key={side}
          class={`canvas-handle ${side}`}
          data-side={side}
          aria-hidden="true"
          onPointerDown={(e) => c.onConnectStart(e, side)}
        />
      ))}
      <span class="canvas-resize" aria-hidden="true" onPointerDown={c.onResizeStart} />
    </div>
  );
}

/** A note's preview (one level, no embeds) or an image; only files of this vault are fetched. */
function FileCardBody({ file, props }: { file: string; props: CanvasEditorProps }) {
  const [content, setContent] = useState<string>();
  const notePath = file.endsWith(".md") || !IMAGE.test(file) ? props.resolve(file) : undefined;
  const image = IMAGE.test(file) && !props.tab.owner ? props.resolveAttachment(file) : undefined;
  useEffect(() => {
    if (!notePath) return;
    let stale = false;
    api<Note>(`/api/notes${q({ path: notePath, owner: props.tab.owner })}`).then(
      (n) => !stale && setContent(n.content),
      () => !stale && setContent(undefined),
    );
    return () => void (stale = true);
  }, [notePath]);
  if (image) return <img class="canvas-image" src={attachmentSrc(image)} alt={file} />;
  if (!notePath) return <span class="missing-image">{file} (not in this vault)</span>;
  return (
    <>
      <button type="button" class="link canvas-file-name" onClick={() => props.onOpen(notePath)}>
        {file}
      </button>
      {content !== undefined && (
        <Preview
          content={content}
          resolve={props.resolve}
          resolveAttachment={props.resolveAttachment}
          onOpen={props.onOpen}
          nested
          {...(props.tab.owner ? { owner: props.tab.owner } : {})}
        />
      )}
    </>
  );
}

function CanvasEdgeLine(
  { edge, from, to, selected, onSelect }: {
    edge: CanvasEdge;
    from: CanvasNode;
    to: CanvasNode;
    selected: boolean;
    onSelect: (e: PointerEvent) => void;
  },
) {
  const mid = (n: CanvasNode) => ({ x: n.x + n.width / 2, y: n.y + n.height / 2 });
  const fs = edge.fromSide ?? nearestSide(from, mid(to));
  const ts = edge.toSide ?? nearestSide(to, mid(from));
  const a = anchor(from, fs), b = anchor(to, ts);
  const bend = Math.max(40, Math.hypot(b.x - a.x, b.y - a.y) / 3);
  const [fx, fy] = NORMAL[fs], [tx, ty] = NORMAL[ts];
  const c1 = { x: a.x + fx * bend, y: a.y + fy * bend }, c2 = { x: b.x + tx * bend, y: b.y + ty * bend };
  const d = `M${a.x},${a.y} C${c1.x},${c1.y} ${c2.x},${c2.y} ${b.x},${b.y}`;
  const color = cssColor(edge.color);
  // An arrowhead pointing into the side it ends on.
  const head = (p: { x: number; y: number }, nx: number, ny: number) => {
    const s = 9, w = 5;
    const bx = p.x + nx * s, by = p.y + ny * s;
    return `${p.x},${p.y} ${bx - ny * w},${by + nx * w} ${bx + ny * w},${by - nx * w}`;
  };
  const lx = (a.x + 3 * c1.x + 3 * c2.x + b.x) / 8, ly = (a.y + 3 * c1.y + 3 * c2.y + b.y) / 8;
  return (
    <g
      class={`canvas-edge${selected ? " selected" : ""}`}
      data-edge-id={edge.id}
      style={color ? { color } : undefined}
    >
      <path class="canvas-edge-hit" d={d} onPointerDown={onSelect} />
      <path class="canvas-edge-line" d={d} />
      {(edge.toEnd ?? "arrow") === "arrow" && <polygon points={head(b, tx, ty)} />}
      {edge.fromEnd === "arrow" && <polygon points={head(a, fx, fy)} />}
      {edge.label && <text x={lx} y={ly} class="canvas-edge-label">{edge.label}</text>}
    </g>
  );
}
