/**
 * The graph view: the whole vault's notes and links (`GET /api/graph`), or the local graph of the
 * open note one or two link steps out; filtered by tag and folder; laid out by web/shared/force_layout.ts and
 * drawn as SVG. Wheel or the buttons zoom, dragging pans, a click on a node opens the note, hovering
 * shows its name. Links to no note are drawn dimmed. For the keyboard and screen readers, the nodes
 * are also a list of buttons below the picture.
 */
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { api, q } from "./api.ts";
import { bounds, startLayout } from "../shared/force_layout.ts";
import { filterChoices, filterGraph, type Graph, localGraph, resolveNames } from "./graph_filter.ts";

export interface GraphViewProps {
  /** The open note, for the local graph. */
  current?: { path: string; owner?: string };
  onOpen: (path: string) => void;
  onClose: () => void;
  /** Changes when the vault changed elsewhere. */
  refresh: number;
}

interface Transform {
  x: number;
  y: number;
  k: number;
}

const WIDTH = 1000, HEIGHT = 700;
const clampK = (k: number) => Math.min(8, Math.max(0.05, k));
const fmt = (t: Transform) => `translate(${t.x.toFixed(1)} ${t.y.toFixed(1)}) scale(${t.k.toFixed(3)})`;

export function GraphView({ current, onOpen, onClose, refresh }: GraphViewProps) {
  const [scope, setScope] = useState<"vault" | "local">("vault");
  const [depth, setDepth] = useState(1);
  const [tag, setTag] = useState("");
  const [folder, setFolder] = useState("");
  const [graph, setGraph] = useState<Graph>();
  const [templates, setTemplates] = useState<ReadonlySet<string>>(new Set());
  const [error, setError] = useState("");
  const [hover, setHover] = useState<string>();
  const [t, setT] = useState<Transform>({ x: WIDTH / 2, y: HEIGHT / 2, k: 1 });
  const svg = useRef<SVGSVGElement>(null);
  const local = scope === "local" && current !== undefined;

  // One call for the whole vault (or the owner's shared notes); the local graph is cut from it, after
  // links by name are resolved (graph_filter.ts says why).
  const owner = local ? current!.owner : undefined;
  // Changes elsewhere come in bursts (a sync writes many files): fetch once they settle.
  const first = useRef(true);
  useEffect(() => {
    let stale = false;
    const fetchGraph = () =>
      Promise.all([
        api<Graph>(`/api/graph${q({ owner })}`),
        // Templates are not notes of the vault: no "{{title}}" node (graph_filter.ts).
        owner
          ? { templates: [] }
          : api<{ templates: string[] }>("/api/templates").catch(() => ({ templates: [] })),
      ]).then(
        ([g, t]) => !stale && (setGraph(resolveNames(g)), setTemplates(new Set(t.templates)), setError("")),
        (err) => !stale && setError(err.message),
      );
    const timer = setTimeout(fetchGraph, first.current ? 0 : 400);
    first.current = false;
    return () => {
      stale = true;
      clearTimeout(timer);
    };
  }, [owner, refresh]);

  const shown = useMemo(() => {
    if (!graph) return undefined;
    const around = local ? localGraph(graph, current!.path, depth) : graph;
    return filterGraph(around, { tag, folder, exclude: templates });
  }, [graph, templates, local, current?.path, depth, tag, folder]);
  const choices = useMemo(() => graph ? filterChoices(graph) : { tags: [], folders: [] }, [graph]);
  const layout = useMemo(() => {
    if (!shown) return undefined;
    const index = new Map(shown.nodes.map((n, i) => [n.path, i]));
    const links = shown.edges.map((e) => [index.get(e.source)!, index.get(e.target)!] as const);
    const run = startLayout(shown.nodes.length, links);
    /** Time spent laying out; undefined until the layout is done. */
    const stats: { ms?: number } = {};
    return { index, links, pos: run.pos, run, stats };
  }, [shown]);

  // A new picture starts fitted to the view.
  const fit = () => {
    if (!layout) return;
    const [x0, y0, x1, y1] = bounds(layout.pos);
    const k = clampK(Math.min(WIDTH / (x1 - x0 + 80), HEIGHT / (y1 - y0 + 80), 2));
    setT({ x: WIDTH / 2 - ((x0 + x1) / 2) * k, y: HEIGHT / 2 - ((y0 + y1) / 2) * k, k });
  };
  // The layout runs in slices of about 16 ms a frame, so a large vault never freezes the page; it is
  // drawn after the first slice (fitted to the view), every 300 ms while it runs (drawing 3,000 SVG
  // elements costs more than a slice), and at the end (fitted again).
  const [frame, setFrame] = useState(0);
  useEffect(() => {
    if (!layout) return;
    let raf = 0, busy = 0, drawn = 0;
    const slice = () => {
      const t0 = performance.now();
      let more = true;
      while (more && performance.now() - t0 < 16) more = layout.run.step();
      busy += performance.now() - t0;
      if (!more) layout.stats.ms = busy;
      if (!drawn || !more || t0 - drawn > 300) {
        setFrame((f) => f + 1);
        if (!drawn || !more) fit();
        drawn = performance.now();
      }
      if (more) raf = requestAnimationFrame(slice);
    };
    slice();
    return () => cancelAnimationFrame(raf);
  }, [layout]);

  /** The SVG's own coordinates of a pointer event. */
  const point = (e: { clientX: number; clientY: number }) => {
    const r = svg.current!.getBoundingClientRect();
    return { x: ((e.clientX - r.left) / r.width) * WIDTH, y: ((e.clientY - r.top) / r.height) * HEIGHT };
  };
  const zoomAt = (factor: number, at = { x: WIDTH / 2, y: HEIGHT / 2 }) =>
    setT((t) => {
      const k = clampK(t.k * factor);
      return { k, x: at.x - ((at.x - t.x) * k) / t.k, y: at.y - ((at.y - t.y) * k) / t.k };
    });

  // Wheel zoom needs a non-passive listener to keep the page from scrolling.
  useEffect(() => {
    const el = svg.current;
    if (!el) return;
    const onWheel = (e: WheelEvent) => {
      e.preventDefault();
      zoomAt(Math.exp(-e.deltaY * 0.0015), point(e));
    };
    el.addEventListener("wheel", onWheel, { passive: false });
    return () => el.removeEventListener("wheel", onWheel);
  }, []);

  // Dragging pans; a press and release without moving on a node opens it.
  const drag = useRef<{ x: number; y: number; t: Transform; moved: boolean } | undefined>(undefined);
  const onPointerDown = (e: PointerEvent) => {
    if (e.button !== 0) return;
    drag.current = { ...point(e), t, moved: false };
    (e.currentTarget as Element).setPointerCapture(e.pointerId);
  };
  const onPointerMove = (e: PointerEvent) => {
    const d = drag.current;
    if (!d) return;
    const p = point(e);
    if (!d.moved && Math.hypot(p.x - d.x, p.y - d.y) < 4) return;
    d.moved = true;
    setT({ ...d.t, x: d.t.x + p.x - d.x, y: d.t.y + p.y - d.y });
  };
  const onPointerUp = (e: PointerEvent) => {
    const d = drag.current;
    drag.current = undefined;
    if (!d || d.moved) return;
    // Pointer capture sends the release to the SVG: find the node under the pointer.
    const node = document.elementFromPoint(e.clientX, e.clientY)?.closest<SVGGElement>("g.graph-node");
    const path = node?.dataset.path;
    if (path && node.classList.contains("resolved")) onOpen(path);
  };

  const nodes = shown?.nodes ?? [];
  const many = nodes.length > 150;
  // Bigger nodes for notes with more links.
  const radii = useMemo(() => {
    const degree = new Map<string, number>();
    for (const e of shown?.edges ?? []) {
      degree.set(e.source, (degree.get(e.source) ?? 0) + 1);
      degree.set(e.target, (degree.get(e.target) ?? 0) + 1);
    }
    return new Map(nodes.map((n) => [n.path, Math.min(14, 4 + Math.sqrt(degree.get(n.path) ?? 0) * 1.6)]));
  }, [shown]);
  // Zooming and panning change only the viewport's transform: the drawing itself is a memoized
  // element, which Preact does not render again (1,000 nodes stay smooth).
  const labels = !many || t.k > 1.5;
  const layer = useMemo(
    () =>
      layout && shown && (
        <GraphLayer
          graph={shown}
          layout={layout}
          radii={radii}
          labels={labels}
          {...(current ? { current: current.path } : {})}
          onHover={setHover}
        />
      ),
    [layout, radii, labels, current?.path, frame],
  );
  const hovered = hover && layout?.index.get(hover);
  const hoveredNode = hovered !== undefined && hovered !== "" ? nodes[hovered] : undefined;

  return (
    <section class="graph-view" aria-label="Graph view">
      <div class="graph-tools" role="toolbar" aria-label="Graph">
        <label>
          Show{" "}
          <select
            aria-label="Graph scope"
            value={local ? "local" : "vault"}
            onChange={(e) => setScope(e.currentTarget.value as "vault")}
          >
            <option value="vault">Whole vault</option>
            <option value="local" disabled={!current}>
              {current ? `Around ${current.path}` : "Around the open note"}
            </option>
          </select>
        </label>
        {local && (
          <label>
            Depth{" "}
            <select
              aria-label="Link depth"
              value={String(depth)}
              onChange={(e) => setDepth(Number(e.currentTarget.value))}
            >
              <option value="1">1 link</option>
              <option value="2">2 links</option>
            </select>
          </label>
        )}
        <label>
          Tag{" "}
          <select aria-label="Filter by tag" value={tag} onChange={(e) => setTag(e.currentTarget.value)}>
            <option value="">Any tag</option>
            {choices.tags.map((t) => <option key={t} value={t}>#{t}</option>)}
          </select>
        </label>
        <label>
          Folder{" "}
          <select
            aria-label="Filter by folder"
            value={folder}
            onChange={(e) => setFolder(e.currentTarget.value)}
          >
            <option value="">Whole vault</option>
            {choices.folders.map((f) => <option key={f} value={f}>{f}</option>)}
          </select>
        </label>
        <button type="button" aria-label="Zoom in" title="Zoom in" onClick={() => zoomAt(1.25)}>+</button>
        <button type="button" aria-label="Zoom out" title="Zoom out" onClick={() => zoomAt(0.8)}>−</button>
        <button type="button" onClick={fit}>Fit</button>
        <span class="spacer" />
        <span class="muted graph-stats" data-layout-ms={layout?.stats.ms?.toFixed(0) ?? ""}>
          {shown && `${shown.nodes.length} notes, ${shown.edges.length} links`}
          {shown?.truncated && " (cut)"}
        </span>
        <button type="button" class="icon-button" aria-label="Close graph" onClick={onClose}>×</button>
      </div>
      {error && <div class="banner conflict" role="alert">{error}</div>}
      <svg
        ref={svg}
        class="graph-canvas"
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        role="img"
        aria-label={`Link graph of ${nodes.length} notes`}
        onPointerDown={onPointerDown}
        onPointerMove={onPointerMove}
        onPointerUp={onPointerUp}
        onPointerCancel={() => (drag.current = undefined)}
      >
        {layout && (
          <g class="graph-viewport" transform={fmt(t)}>
            {layer}
          </g>
        )}
        {hoveredNode && layout && (
          <text
            class="graph-hover"
            x={layout.pos[2 * (hovered as number)]! * t.k + t.x}
            y={layout.pos[2 * (hovered as number) + 1]! * t.k + t.y - 14}
          >
            {hoveredNode.exists ? hoveredNode.title : `${hoveredNode.path} (no such note)`}
          </text>
        )}
      </svg>
      <details class="graph-list">
        <summary>Notes in the graph ({nodes.length})</summary>
        <ul>
          {nodes.map((n) => (
            <li key={n.path}>
              {n.exists
                ? <button type="button" class="link" onClick={() => onOpen(n.path)}>{n.title}</button>
                : <span class="muted">{n.path} (no such note)</span>}
            </li>
          ))}
        </ul>
      </details>
    </section>
  );
}

const LABEL_CHARS = 28;
const short = (title: string) => (title.length > LABEL_CHARS ? `${title.slice(0, LABEL_CHARS - 1)}…` : title);

/**
 * Which nodes get a label: the current note, then the most linked, each only where its label does not
 * cover one already placed (the others show their name on hover). Labels scale with the zoom, so
 * what overlaps does not change with it.
 */
export function labelled(
  nodes: readonly { path: string; title: string }[],
  pos: Float64Array,
  radii: ReadonlyMap<string, number>,
  current?: string,
): Set<number> {
  const order = nodes.map((_, i) => i).sort((a, b) =>
    Number(nodes[b]!.path === current) - Number(nodes[a]!.path === current) ||
    (radii.get(nodes[b]!.path) ?? 0) - (radii.get(nodes[a]!.path) ?? 0)
  );
  const placed: [number, number, number, number][] = [];
  const out = new Set<number>();
  for (const i of order) {
    const n = nodes[i]!;
    const w = short(n.title).length * 6.2 + 4;
    const x0 = pos[2 * i]! - w / 2, y0 = pos[2 * i + 1]! + (radii.get(n.path) ?? 4) + 1;
    const box: [number, number, number, number] = [x0, y0, x0 + w, y0 + 13];
    if (placed.some((b) => b[0] < box[2] && box[0] < b[2] && b[1] < box[3] && box[1] < b[3])) continue;
    placed.push(box);
    out.add(i);
  }
  return out;
}

function GraphLayer({ graph, layout, radii, labels, current, onHover }: {
  graph: Graph;
  layout: { links: (readonly [number, number])[]; pos: Float64Array };
  radii: Map<string, number>;
  labels: boolean;
  current?: string;
  onHover: (update: (h: string | undefined) => string | undefined) => void;
}) {
  const { nodes, edges } = graph;
  const shown = labels ? labelled(nodes, layout.pos, radii, current) : new Set<number>();
  return (
    <>
      {edges.map((e, i) => {
        const [a, b] = layout.links[i]!;
        return (
          <line
            key={`${e.source}\0${e.target}\0${e.kind}`}
            class={nodes[b]!.exists ? "graph-edge" : "graph-edge unresolved"}
            data-source={e.source}
            data-target={e.target}
            x1={layout.pos[2 * a]}
            y1={layout.pos[2 * a + 1]}
            x2={layout.pos[2 * b]}
            y2={layout.pos[2 * b + 1]}
          />
        );
      })}
      {nodes.map((n, i) => (
        <g
          key={n.path}
          class={`graph-node ${n.exists ? "resolved" : "unresolved"}${n.path === current ? " current" : ""}`}
          data-path={n.path}
          transform={`translate(${layout.pos[2 * i]!.toFixed(1)} ${layout.pos[2 * i + 1]!.toFixed(1)})`}
          onPointerEnter={() => onHover(() => n.path)}
          onPointerLeave={() => onHover((h) => (h === n.path ? undefined : h))}
        >
          <circle r={radii.get(n.path)} />
          {shown.has(i) && <text y={radii.get(n.path)! + 11}>{short(n.title)}</text>}
        </g>
      ))}
    </>
  );
}
