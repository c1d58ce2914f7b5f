/**
 * An entry's neighbourhood at depth 1–3: an SVG graph whose nodes can be dragged (mouse or
 * touch), focused with Tab and opened with Enter; the selected node's content is shown beside it.
 */
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { api, type Entry } from "../api.ts";
import { Empty, ErrorNote, Field, Loading, PageHeader, useLoad } from "../components.tsx";
import { forceLayout, type LayoutNode } from "../force.ts";
import { href, navigate, type Route } from "../router.ts";

const W = 800;
const H = 520;

export function GraphPage({ route }: { route: Route }) {
  const id = route.params.get("id") ?? "";
  const depth = Math.min(3, Math.max(1, Number(route.params.get("depth") ?? "1") || 1));
  const [draft, setDraft] = useState(id);
  // A link to another entry (or back/forward) changes the URL under the form: the field follows it.
  useEffect(() => setDraft(id), [id]);
  const recent = useLoad(() => (id ? Promise.resolve(undefined) : api.recent({ limit: 8 })), [id]);
  const graph = useLoad(() => (id ? api.neighbors(id, depth) : Promise.resolve(undefined)), [id, depth]);
  // While another entry or depth loads, the previous answer is not the graph asked for: never draw it.
  const shown = graph.data && graph.data.root === id && graph.data.depth === depth ? graph.data : undefined;

  return (
    <>
      <PageHeader title="Graph" lead="How an entry links to others: co-occurring and inferred relations." />
      <form
        class="filters card"
        onSubmit={(e) => {
          e.preventDefault();
          navigate(href("graph", { id: draft.trim(), depth }));
        }}
      >
        <Field label="Entry id">
          <input
            name="entry-id"
            class="mono"
            required
            value={draft}
            onInput={(e) => setDraft(e.currentTarget.value)}
          />
        </Field>
        <Field label="Depth">
          <select
            name="depth"
            value={String(depth)}
            onChange={(e) => navigate(href("graph", { id, depth: e.currentTarget.value }))}
          >
            <option value="1">1 – direct neighbours</option>
            <option value="2">2</option>
            <option value="3">3</option>
          </select>
        </Field>
        <div class="filter-actions">
          <button type="submit" class="btn">Show</button>
        </div>
      </form>
      {!id && (
        <>
          {recent.loading && <Loading />}
          {recent.data && recent.data.entries.length === 0 && (
            <Empty title="No entries yet">
              Add entries on the Browse page; related ones link up automatically.
            </Empty>
          )}
          {recent.data && recent.data.entries.length > 0 && (
            <section class="section">
              <h2 class="section-title">Start from a recent entry</h2>
              <ul class="entries compact">
                {recent.data.entries.map((e) => (
                  <li key={e.id} class="entry">
                    <a class="entry-link" href={href("graph", { id: e.id, depth })}>
                      <span class="entry-content">{e.content}</span>
                    </a>
                  </li>
                ))}
              </ul>
            </section>
          )}
        </>
      )}
      {graph.error && <ErrorNote error={graph.error} onRetry={graph.reload} />}
      {id && !shown && graph.loading && <Loading />}
      {shown && (
        <GraphView
          key={`${shown.root}-${shown.depth}`}
          root={shown.root}
          nodes={shown.nodes}
          edges={shown.edges}
          depth={shown.depth}
        />
      )}
    </>
  );
}

function GraphView(props: {
  root: string;
  nodes: Entry[];
  edges: { from: string; to: string; relation: string; weight: number }[];
  depth: number;
}) {
  const byId = useMemo(() => new Map(props.nodes.map((n) => [n.id, n])), [props.nodes]);
  // The layout is derived from the data, so new data is always laid out; where a person dragged a node
  // is kept beside it, and only for the layout it was dragged in.
  const layout = useMemo(
    () => forceLayout(props.nodes.map((n) => n.id), props.edges, props.root, { width: W, height: H }),
    [props.nodes, props.edges, props.root],
  );
  const [dragged, setDragged] = useState<
    { layout: Map<string, LayoutNode>; moved: Map<string, LayoutNode> }
  >();
  const moved = dragged?.layout === layout ? dragged.moved : undefined;
  const pos = { get: (id: string) => moved?.get(id) ?? layout.get(id) };
  const [selected, setSelected] = useState(props.root);
  const svg = useRef<SVGSVGElement>(null);
  const drag = useRef<string | undefined>(undefined);

  const toSvg = (e: PointerEvent) => {
    const r = svg.current!.getBoundingClientRect();
    return { x: ((e.clientX - r.left) / r.width) * W, y: ((e.clientY - r.top) / r.height) * H };
  };
  const onMove = (e: PointerEvent) => {
    if (!drag.current) return;
    const p = toSvg(e);
    const next = new Map(moved);
    next.set(drag.current, { id: drag.current, x: p.x, y: p.y });
    setDragged({ layout, moved: next });
  };

  if (props.nodes.length <= 1) {
    return (
      <Empty title="This entry has no neighbours yet">
        Links appear when related entries are stored in the same scope, and when the dream cycle infers them.
      </Empty>
    );
  }
  const sel = byId.get(selected);
  const label = (e: Entry) => (e.content.length > 28 ? `${e.content.slice(0, 27)}…` : e.content);
  return (
    <div class="graph-layout">
      <div class="graph-canvas card">
        <svg
          ref={svg}
          viewBox={`0 0 ${W} ${H}`}
          role="group"
          aria-label={`Graph of ${props.nodes.length} entries and ${props.edges.length} links, depth ${props.depth}`}
          onPointerMove={onMove}
          onPointerUp={() => (drag.current = undefined)}
          onPointerLeave={() => (drag.current = undefined)}
        >
          {props.edges.map((e, i) => {
            const a = pos.get(e.from);
            const b = pos.get(e.to);
            if (!a || !b) return null;
            return (
              <line
                key={i}
                class={`edge rel-${e.relation}`}
                x1={a.x}
                y1={a.y}
                x2={b.x}
                y2={b.y}
                stroke-width={1 + Math.max(0, Math.min(1, e.weight)) * 2}
              >
                <title>{`${e.relation} (${e.weight.toFixed(2)})`}</title>
              </line>
            );
          })}
          {props.nodes.map((n) => {
            const p = pos.get(n.id);
            if (!p) return null;
            const isRoot = n.id === props.root;
            return (
              <g
                key={n.id}
                class={`node depth-${n.depth ?? 0}${n.id === selected ? " selected" : ""}${
                  isRoot ? " root" : ""
                }`}
                transform={`translate(${p.x.toFixed(1)},${p.y.toFixed(1)})`}
                tabindex={0}
                role="button"
                // The visible label first (a screen reader and a voice command hear what is shown), the
                // whole content in the title.
                aria-label={`${label(n)} (${isRoot ? "root entry" : `depth ${n.depth ?? "?"}`})`}
                aria-pressed={n.id === selected}
                onPointerDown={(e) => {
                  drag.current = n.id;
                  setSelected(n.id);
                  (e.currentTarget as Element).setPointerCapture?.(e.pointerId);
                }}
                onKeyDown={(e) => {
                  if (e.key === "Enter" || e.key === " ") {
                    e.preventDefault();
                    setSelected(n.id);
                  }
                }}
                onDblClick={() => navigate(href("graph", { id: n.id, depth: props.depth }))}
              >
                <title>{n.content}</title>
                <circle r={isRoot ? 14 : 10} />
                <text y={isRoot ? 28 : 24} text-anchor="middle">{label(n)}</text>
              </g>
            );
          })}
        </svg>
        <p class="muted small">
          Drag to rearrange. Tab to a node and press Enter to select it; double-click to centre on it.
        </p>
      </div>
      <aside class="card graph-side" aria-label="Selected entry" aria-live="polite">
        {sel && (
          <>
            <h2 class="card-title">{sel.id === props.root ? "Root entry" : `Depth ${sel.depth ?? "?"}`}</h2>
            <p class="entry-full">{sel.content}</p>
            <p class="muted small">
              {sel.source_type ?? "no source type"} · {sel.hit_count} hits
            </p>
            <div class="row-actions">
              <a class="btn btn-small" href={href("browse", { id: sel.id })}>Open</a>
              {sel.id !== props.root && (
                <a class="btn btn-small" href={href("graph", { id: sel.id, depth: props.depth })}>
                  Centre here
                </a>
              )}
            </div>
            <h3 class="small-title">Links</h3>
            <ul class="links">
              {props.edges.filter((e) => e.from === sel.id || e.to === sel.id).map((e, i) => {
                const other = byId.get(e.from === sel.id ? e.to : e.from);
                return (
                  <li key={i}>
                    <span class="badge">{e.relation}</span> {other ? label(other) : "?"}
                  </li>
                );
              })}
            </ul>
          </>
        )}
      </aside>
    </div>
  );
}
