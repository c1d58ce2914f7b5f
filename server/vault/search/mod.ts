/**
 * The vault's search index and link graph, kept in the database (PGlite or PostgreSQL) next to the
 * note files they are derived from. The routes call these functions; migrations 0002_notes_index,
 * 0007_search_changes and 0009_link_targets create the tables.
 *
 * @example
 * await upsertNote(db, userId, parsedNote);
 * const page = await searchNotes(db, { userId }, 'tag:work "error budget"');
 * const links = await backlinks(db, userId, "People/Alice.md");
 */
export {
  addFiles,
  analyzeSearchIndex,
  folderOf,
  INDEXED_BODY_CHARS,
  indexedFiles,
  type IndexedVersion,
  indexedVersions,
  type NoteDocument,
  type NoteLink,
  removeFolder,
  removeNote,
  removeNotes,
  removeUserIndex,
  renameFolder,
  renameNote,
  upsertNote,
  upsertNotes,
} from "./note_index.ts";
export {
  SEARCH_LIMITS,
  type SearchHit,
  searchNotes,
  type SearchOptions,
  type SearchPage,
  type SearchScope,
  type SharedNotes,
} from "./search_notes.ts";
export { parseSearchQuery, QUERY_LIMITS, type SearchQuery, SearchQueryError } from "./parse_search_query.ts";
export {
  type Backlink,
  backlinks,
  GRAPH_LIMITS,
  type GraphEdge,
  type GraphNode,
  type LinkGraph,
  linkGraph,
  type LinkGraphOptions,
  type OutgoingLink,
  outgoingLinks,
  type UnresolvedLink,
  unresolvedLinks,
} from "./link_graph.ts";
export { noteTags, tagsByPath } from "./note_tags.ts";
export type { LinkKind, NoteIndexTable, NoteLinksTable, SearchDb, SearchTables } from "./schema.ts";
