/**
 * A JSON Canvas 1.0 document in the canvas editor, and the edits on it as pure functions (each
 * returns a new document, so undo is a stack of old ones). The server validates every write
 * (server/vault/notes/canvas.ts); here geometry is kept to integers and ids unique so what we send
 * passes. Properties we do not know are kept, as the format allows extensions.
 *
 * @example
 * let doc = emptyCanvas();
 * doc = addNode(doc, { type: "text", text: "Hello", x: 0, y: 0, width: 250, height: 60 });
 * const json = serializeCanvas(doc);
 */
export type Side = "top" | "right" | "bottom" | "left";
export const SIDES: readonly Side[] = ["top", "right", "bottom", "left"];

/** A node's own fields (a type without the index signature, so `Omit` keeps them). */
export interface NodeFields {
  type: "text" | "file" | "link" | "group";
  x: number;
  y: number;
  width: number;
  height: number;
  color?: string;
  text?: string;
  file?: string;
  subpath?: string;
  url?: string;
  label?: string;
}
export interface CanvasNode extends NodeFields {
  id: string;
  [extension: string]: unknown;
}

export interface EdgeFields {
  fromNode: string;
  fromSide?: Side;
  fromEnd?: "none" | "arrow";
  toNode: string;
  toSide?: Side;
  toEnd?: "none" | "arrow";
  color?: string;
  label?: string;
}
export interface CanvasEdge extends EdgeFields {
  id: string;
  [extension: string]: unknown;
}

export interface CanvasDoc {
  nodes: CanvasNode[];
  edges: CanvasEdge[];
  [extension: string]: unknown;
}

export const MIN_SIZE = 40;

export const emptyCanvas = (): CanvasDoc => ({ nodes: [], edges: [] });

/** The document from the server's parsed canvas (`nodes` and `edges` may be missing). */
export const fromServer = (c: Partial<CanvasDoc>): CanvasDoc => ({
  ...c,
  nodes: c.nodes ?? [],
  edges: c.edges ?? [],
});

/** Canvas text as the server writes it (tab-indented JSON). */
export const serializeCanvas = (doc: CanvasDoc) => JSON.stringify(doc, null, "\t");

/** A new id: 16 hex digits, as Obsidian makes them, different from every id in `doc`. */
export function newId(doc: CanvasDoc): string {
  const taken = new Set([...doc.nodes.map((n) => n.id), ...doc.edges.map((e) => e.id)]);
  for (;;) {
    const bytes = crypto.getRandomValues(new Uint8Array(8));
    const id = [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
    if (!taken.has(id)) return id;
  }
}

const int = (n: number) => Math.round(n);

export function addNode(doc: CanvasDoc, node: NodeFields): { doc: CanvasDoc; id: string } {
  const id = newId(doc);
  const added = {
    id,
    ...node,
    x: int(node.x),
    y: int(node.y),
    width: Math.max(MIN_SIZE, int(node.width)),
    height: Math.max(MIN_SIZE, int(node.height)),
  } as CanvasNode;
  // Array order is z-order: a group goes first, behind what it holds.
  const nodes = node.type === "group" ? [added, ...doc.nodes] : [...doc.nodes, added];
  return { doc: { ...doc, nodes }, id };
}

export function updateNode(doc: CanvasDoc, id: string, change: Partial<CanvasNode>): CanvasDoc {
  return { ...doc, nodes: doc.nodes.map((n) => (n.id === id ? { ...n, ...change, id } : n)) };
}

export function moveNode(doc: CanvasDoc, id: string, x: number, y: number): CanvasDoc {
  return updateNode(doc, id, { x: int(x), y: int(y) });
}

export function resizeNode(doc: CanvasDoc, id: string, width: number, height: number): CanvasDoc {
  return updateNode(doc, id, {
    width: Math.max(MIN_SIZE, int(width)),
    height: Math.max(MIN_SIZE, int(height)),
  });
}

/** Removes a node and the edges to and from it. */
export function removeNode(doc: CanvasDoc, id: string): CanvasDoc {
  return {
    ...doc,
    nodes: doc.nodes.filter((n) => n.id !== id),
    edges: doc.edges.filter((e) => e.fromNode !== id && e.toNode !== id),
  };
}

export function addEdge(
  doc: CanvasDoc,
  edge: EdgeFields,
): { doc: CanvasDoc; id: string } {
  const id = newId(doc);
  return { doc: { ...doc, edges: [...doc.edges, { id, ...edge }] }, id };
}

export function updateEdge(doc: CanvasDoc, id: string, change: Partial<CanvasEdge>): CanvasDoc {
  return { ...doc, edges: doc.edges.map((e) => (e.id === id ? { ...e, ...change, id } : e)) };
}

export const removeEdge = (doc: CanvasDoc, id: string): CanvasDoc => ({
  ...doc,
  edges: doc.edges.filter((e) => e.id !== id),
});

/** Where an edge meets a node's side: the side's middle. */
export function anchor(n: CanvasNode, side: Side): { x: number; y: number } {
  switch (side) {
    case "top":
      return { x: n.x + n.width / 2, y: n.y };
    case "bottom":
      return { x: n.x + n.width / 2, y: n.y + n.height };
    case "left":
      return { x: n.x, y: n.y + n.height / 2 };
    case "right":
      return { x: n.x + n.width, y: n.y + n.height / 2 };
  }
}

/** The side of `n` nearest to a point (for an edge dropped on a node, or one without sides). */
export function nearestSide(n: CanvasNode, p: { x: number; y: number }): Side {
  let best: Side = "top", bestD = Infinity;
  for (const s of SIDES) {
    const a = anchor(n, s);
    const d = Math.hypot(a.x - p.x, a.y - p.y);
    if (d < bestD) [best, bestD] = [s, d];
  }
  return best;
}

/** Preset colors 1–6 (red, orange, yellow, green, cyan, purple) or a hex color; anything else none. */
export function cssColor(color: string | undefined): string | undefined {
  const presets: Record<string, string> = {
    "1": "#e5484d",
    "2": "#f76b15",
    "3": "#e2b714",
    "4": "#30a46c",
    "5": "#00a2c7",
    "6": "#8e4ec6",
  };
  if (!color) return undefined;
  if (presets[color]) return presets[color];
  return /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.test(color) ? color : undefined;
}

/** An undo stack of whole documents, capped. */
export interface History {
  past: CanvasDoc[];
  present: CanvasDoc;
}
const UNDO_LIMIT = 100;
export const commit = (h: History, next: CanvasDoc): History =>
  next === h.present ? h : { past: [...h.past, h.present].slice(-UNDO_LIMIT), present: next };
export const undo = (h: History): History =>
  h.past.length ? { past: h.past.slice(0, -1), present: h.past.at(-1)! } : h;

/**
 * The view (offset and zoom) that shows every node of `doc` inside a stage of `size`, with a margin
 * (more above: a group's label sits over its box), never zoomed in past 1 nor out past 0.1; an empty
 * canvas or a stage with no size yet gets the plain view at 1.
 */
export function fitView(
  doc: CanvasDoc,
  size: { width: number; height: number },
): { x: number; y: number; k: number } {
  if (doc.nodes.length === 0 || size.width <= 0 || size.height <= 0) return { x: 40, y: 60, k: 1 };
  const x0 = Math.min(...doc.nodes.map((n) => n.x));
  const y0 = Math.min(...doc.nodes.map((n) => n.y));
  const x1 = Math.max(...doc.nodes.map((n) => n.x + n.width));
  const y1 = Math.max(...doc.nodes.map((n) => n.y + n.height));
  const margin = { x: 40, top: 60, bottom: 30 };
  const k = Math.max(
    0.1,
    Math.min(
      1,
      (size.width - 2 * margin.x) / Math.max(1, x1 - x0),
      (size.height - margin.top - margin.bottom) / Math.max(1, y1 - y0),
    ),
  );
  return {
    k,
    x: (size.width - (x1 - x0) * k) / 2 - x0 * k,
    y: margin.top + (size.height - margin.top - margin.bottom - (y1 - y0) * k) / 2 - y0 * k,
  };
}
