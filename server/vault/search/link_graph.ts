/**
 * Backlinks, unresolved links and the link graph, read from note_links (written by upsertNote,
 * resolved by link_targets.ts). A link that resolves to no file is unresolved: listed by
 * `unresolvedLinks` with its target as written, and a node with `exists: false` in the graph, the
 * way Obsidian lists and draws unresolved links.
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
  /** The file it resolves to, or the target as written when it resolves to none. */
  target: string;
  kind: LinkKind;
  /** False for an unresolved link. */
  exists: boolean;
}

/** A link that resolves to no file (yet). */
export interface UnresolvedLink {
  /** The note it is written in. */
  source: string;
  /** The target as written (Markdown links: resolved against the note's folder). */
  target: string;
  kind: LinkKind;
}

export interface GraphNode {
  path: string;
  /** A note's title; the file name of another file; the target as written for an unresolved one. */
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

/** The notes that link to the file at `path`, by path, once per kind of link. */
export async function backlinks(db: SearchDb, userId: string, path: string): Promise<Backlink[]> {
  return await db.selectFrom("note_links as l")
    .innerJoin(
      "note_index as n",
      (j) => j.onRef("n.user_id", "=", "l.user_id").onRef("n.path", "=", "l.source_path"),
    )
    .select(["l.source_path as path", "n.title", "l.kind"]).distinct()
    .where("l.user_id", "=", userId).where("l.target_path", "=", path).where("l.source_path", "<>", path)
    .orderBy("l.source_path").orderBy("l.kind").execute();
}

/** The links written in the note at `path`, by target. */
export async function outgoingLinks(db: SearchDb, userId: string, path: string): Promise<OutgoingLink[]> {
  const rows = await db.selectFrom("note_links")
    .select([TARGET.as("target"), "kind", sql<boolean>`target_path is not null`.as("exists")]).distinct()
    .where("user_id", "=", userId).where("source_path", "=", path)
    .orderBy("target").orderBy("kind").execute();
  return rows.map((r) => ({ target: r.target, kind: r.kind, exists: Boolean(r.exists) }));
}

/** Every link of the user's notes that resolves to no file, by target, then source. */
export async function unresolvedLinks(db: SearchDb, userId: string): Promise<UnresolvedLink[]> {
  return await db.selectFrom("note_links").select(["source_path as source", "target", "kind"]).distinct()
    .where("user_id", "=", userId).where("target_path", "is", null)
    .orderBy("target").orderBy("source_path").orderBy("kind").execute();
}

/** Where a link goes in the graph: the file it resolves to, else the target as written. */
const TARGET = sql<string>`coalesce(target_path, target)`;

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
    ? await db.selectFrom("note_links").select(["source_path as source", TARGET.as("target"), "kind"])
      .distinct()
      .where("user_id", "=", userId).orderBy("source_path").orderBy("target").orderBy("kind").execute()
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
  // Targets that are files but not notes (attachments, canvases) exist too.
  const notePaths = new Set(notes.map((n) => n.path));
  const others = [...paths].filter((p) => !notePaths.has(p));
  const files = others.length === 0 ? new Set<string>() : new Set(
    (await db.selectFrom("vault_files").select("path").where("user_id", "=", userId)
      .where(sql<boolean>`path = any(${others}::text[])`).execute()).map((f) => f.path),
  );
  const nodes = new Map<string, GraphNode>();
  for (const n of notes) nodes.set(n.path, { path: n.path, title: n.title, tags: n.tags, exists: true });
  for (const path of [...paths].sort(compare)) {
    if (nodes.has(path)) continue;
    const exists = files.has(path);
    nodes.set(path, { path, title: exists ? path.slice(path.lastIndexOf("/") + 1) : path, tags: [], exists });
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
      TARGET.as("target"),
      "kind",
    ])
      .where("user_id", "=", userId)
      .where(sql<boolean>`(source_path = any(${frontier}::text[]) or target_path = any(${frontier}::text[])
        or (target_path is null and target = any(${frontier}::text[])))`)
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
