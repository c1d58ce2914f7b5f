/**
 * Backlinks and the link graph, read from note_links (written by upsertNote). A link whose target
 * has no indexed note is dangling: it shows as a node with `exists: false`, the way Obsidian's
 * graph shows unresolved links.
 *
 * @example
 * const links = await backlinks(db, userId, "People/Alice.md");
 * const local = await linkGraph(db, userId, { center: "People/Alice.md", depth: 2 });
 */
import { sql } from "kysely";
import type { LinkKind, SearchDb } from "./schema.ts";

export const GRAPH_LIMITS = {
  maxDepth: 3,
  /** Nodes in one answer; a larger graph comes back cut, with `truncated: true`. */
  maxNodes: 20_000,
} as const;

export interface Backlink {
  /** The note that links. */
  path: string;
  title: string;
  kind: LinkKind;
}

export interface OutgoingLink {
  target: string;
  kind: LinkKind;
  /** False for a dangling link. */
  exists: boolean;
}

export interface GraphNode {
  path: string;
  /** The note's title; the path for a dangling target. */
  title: string;
  tags: string[];
  exists: boolean;
}

export interface GraphEdge {
  source: string;
  target: string;
  kind: LinkKind;
}

export interface LinkGraph {
  nodes: GraphNode[];
  edges: GraphEdge[];
  truncated: boolean;
}

export interface LinkGraphOptions {
  /** A local graph around this note (links both ways); the whole vault when unset. */
  center?: string;
  /** Link steps from the center, 1 to GRAPH_LIMITS.maxDepth (default 1). */
  depth?: number;
}

/** The notes that link to `path`, by path. */
export async function backlinks(db: SearchDb, userId: string, path: string): Promise<Backlink[]> {
  return await db.selectFrom("note_links as l")
    .innerJoin(
      "note_index as n",
      (j) => j.onRef("n.user_id", "=", "l.user_id").onRef("n.path", "=", "l.source_path"),
    )
    .select(["l.source_path as path", "n.title", "l.kind"])
    .where("l.user_id", "=", userId).where("l.target_path", "=", path).where("l.source_path", "<>", path)
    .orderBy("l.source_path").orderBy("l.kind").execute();
}

/** The links written in the note at `path`, by target. */
export async function outgoingLinks(db: SearchDb, userId: string, path: string): Promise<OutgoingLink[]> {
  const rows = await db.selectFrom("note_links as l")
    .leftJoin(
      "note_index as n",
      (j) => j.onRef("n.user_id", "=", "l.user_id").onRef("n.path", "=", "l.target_path"),
    )
    .select(["l.target_path as target", "l.kind", sql<boolean>`n.path is not null`.as("exists")])
    .where("l.user_id", "=", userId).where("l.source_path", "=", path)
    .orderBy("l.target_path").orderBy("l.kind").execute();
  return rows.map((r) => ({ target: r.target, kind: r.kind, exists: Boolean(r.exists) }));
}

/** The user's link graph: every note and link, or the neighbourhood of one note. */
export async function linkGraph(
  db: SearchDb,
  userId: string,
  options: LinkGraphOptions = {},
): Promise<LinkGraph> {
  const depth = options.depth ?? 1;
  if (!Number.isInteger(depth) || depth < 1 || depth > GRAPH_LIMITS.maxDepth) {
    throw new RangeError(`depth must be an integer from 1 to ${GRAPH_LIMITS.maxDepth}`);
  }
  const edges = options.center === undefined
    ? await db.selectFrom("note_links").select(["source_path as source", "target_path as target", "kind"])
      .where("user_id", "=", userId).orderBy("source_path").orderBy("target_path").orderBy("kind").execute()
    : await neighbourhood(db, userId, options.center, depth);

  const paths = new Set<string>();
  if (options.center !== undefined) paths.add(options.center);
  for (const e of edges) paths.add(e.source).add(e.target);
  const notes = options.center === undefined
    ? await db.selectFrom("note_index").select(["path", "title", "tags"]).where("user_id", "=", userId)
      .orderBy("path").execute()
    : paths.size === 0
    ? []
    : await db.selectFrom("note_index").select(["path", "title", "tags"]).where("user_id", "=", userId)
      .where(sql<boolean>`path = any(${[...paths]}::text[])`).orderBy("path").execute();

  if (options.center !== undefined && edges.length === 0 && notes.length === 0) {
    return { nodes: [], edges: [], truncated: false }; // no such note, and nothing links to it
  }
  const nodes = new Map<string, GraphNode>();
  for (const n of notes) nodes.set(n.path, { path: n.path, title: n.title, tags: n.tags, exists: true });
  for (const path of [...paths].sort(compare)) {
    if (!nodes.has(path)) nodes.set(path, { path, title: path, tags: [], exists: false });
  }
  const all = [...nodes.values()];
  if (all.length <= GRAPH_LIMITS.maxNodes) return { nodes: all, edges, truncated: false };
  const kept = all.slice(0, GRAPH_LIMITS.maxNodes);
  const keep = new Set(kept.map((n) => n.path));
  return {
    nodes: kept,
    edges: edges.filter((e) => keep.has(e.source) && keep.has(e.target)),
    truncated: true,
  };
}

/** Edges within `depth` link steps of `center`, following links both ways. */
async function neighbourhood(
  db: SearchDb,
  userId: string,
  center: string,
  depth: number,
): Promise<GraphEdge[]> {
  const seen = new Set([center]);
  let frontier = [center];
  const edges = new Map<string, GraphEdge>();
  for (let step = 0; step < depth && frontier.length > 0; step++) {
    const rows = await db.selectFrom("note_links").select([
      "source_path as source",
      "target_path as target",
      "kind",
    ])
      .where("user_id", "=", userId)
      .where(sql<boolean>`(source_path = any(${frontier}::text[]) or target_path = any(${frontier}::text[]))`)
      .execute();
    const next: string[] = [];
    for (const e of rows) {
      edges.set(`${e.source}\0${e.target}\0${e.kind}`, e);
      for (const p of [e.source, e.target]) {
        if (!seen.has(p)) {
          seen.add(p);
          next.push(p);
        }
      }
      if (seen.size > GRAPH_LIMITS.maxNodes) break;
    }
    frontier = next;
  }
  return [...edges.values()].sort((a, b) =>
    compare(a.source, b.source) || compare(a.target, b.target) ||
    compare(a.kind, b.kind)
  );
}

/** Code-point order, as PostgreSQL's C collation sorts. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
