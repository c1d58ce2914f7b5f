/**
 * What the graph view shows of the server's link graph (`GET /api/graph`): notes in a folder or with
 * a tag, the links between them, and the unresolved targets (links to no note) those notes link to.
 * The server's index keeps a `[[Name]]` link's target as written when no note has that path; the
 * editor resolves it by note name (as Obsidian does), so the graph does the same here before
 * anything else, and computes the local graph from the result, so name links count both ways.
 */
export interface GraphNode {
  path: string;
  title: string;
  tags: string[];
  exists: boolean;
}
export interface GraphEdge {
  source: string;
  target: string;
  kind: string;
}
export interface Graph {
  nodes: GraphNode[];
  edges: GraphEdge[];
  truncated?: boolean;
}
export interface GraphFilter {
  /** A tag without '#'; "" for every tag. */
  tag: string;
  /** A folder path; "" for the whole vault. */
  folder: string;
  /**
   * Notes left out with their links: the templates (`GET /api/templates`), whose `{{title}}` headings
   * and placeholder links are not notes of the vault.
   */
  exclude?: ReadonlySet<string>;
}

const inFolder = (path: string, folder: string) => !folder || path.startsWith(`${folder}/`);
const normTag = (t: string) => t.replace(/^#/, "").toLowerCase();

export function filterGraph(graph: Graph, { tag, folder, exclude }: GraphFilter): Graph {
  const want = normTag(tag);
  const keep = new Set(
    graph.nodes.filter((n) =>
      n.exists && !exclude?.has(n.path) && inFolder(n.path, folder) &&
      (!want || n.tags.some((t) => normTag(t) === want))
    ).map((n) => n.path),
  );
  const edges = graph.edges.filter((e) =>
    e.source !== e.target && keep.has(e.source) &&
    (keep.has(e.target) || (!isNote(graph, e.target) && !exclude?.has(e.target)))
  );
  for (const e of edges) keep.add(e.target);
  return { nodes: graph.nodes.filter((n) => keep.has(n.path)), edges, truncated: graph.truncated ?? false };
}

const noteSets = new WeakMap<Graph, Set<string>>();
function isNote(graph: Graph, path: string): boolean {
  let notes = noteSets.get(graph);
  if (!notes) noteSets.set(graph, notes = new Set(graph.nodes.filter((n) => n.exists).map((n) => n.path)));
  return notes.has(path);
}

/** The tags and folders the graph's notes have, sorted, for the filter menus. */
export function filterChoices(graph: Graph): { tags: string[]; folders: string[] } {
  const tags = new Set<string>();
  const folders = new Set<string>();
  for (const n of graph.nodes) {
    if (!n.exists) continue;
    for (const t of n.tags) tags.add(normTag(t));
    const parts = n.path.split("/").slice(0, -1);
    for (let i = 1; i <= parts.length; i++) folders.add(parts.slice(0, i).join("/"));
  }
  return { tags: [...tags].sort(), folders: [...folders].sort() };
}

const stem = (p: string) => p.replace(/\.md$/i, "").toLowerCase();

/** Links to a note's name (not its path) point at that note, as the editor's wiki-links do. */
export function resolveNames(graph: Graph): Graph {
  const notes = graph.nodes.filter((n) => n.exists);
  const byStem = new Map<string, string>();
  const byName = new Map<string, string>();
  for (const n of notes) {
    byStem.set(stem(n.path), n.path);
    const name = stem(n.path.slice(n.path.lastIndexOf("/") + 1));
    if (!byName.has(name)) byName.set(name, n.path);
  }
  const to = new Map<string, string>();
  for (const n of graph.nodes) {
    if (n.exists) continue;
    const found = byStem.get(stem(n.path)) ?? (n.path.includes("/") ? undefined : byName.get(stem(n.path)));
    if (found) to.set(n.path, found);
  }
  if (to.size === 0) return graph;
  const seen = new Set<string>();
  const edges: GraphEdge[] = [];
  for (const e of graph.edges) {
    const edge = { ...e, source: to.get(e.source) ?? e.source, target: to.get(e.target) ?? e.target };
    const key = `${edge.source}\0${edge.target}`;
    if (seen.has(key)) continue;
    seen.add(key);
    edges.push(edge);
  }
  return { ...graph, nodes: graph.nodes.filter((n) => !to.has(n.path)), edges };
}

/** The notes within `depth` link steps of `center`, following links both ways. */
export function localGraph(graph: Graph, center: string, depth: number): Graph {
  const near = new Set([center]);
  let frontier = [center];
  for (let step = 0; step < depth; step++) {
    const next: string[] = [];
    for (const e of graph.edges) {
      for (const [a, b] of [[e.source, e.target], [e.target, e.source]] as const) {
        if (frontier.includes(a) && !near.has(b)) {
          near.add(b);
          next.push(b);
        }
      }
    }
    frontier = next;
  }
  return {
    ...graph,
    nodes: graph.nodes.filter((n) => near.has(n.path)),
    edges: graph.edges.filter((e) => near.has(e.source) && near.has(e.target)),
  };
}
