/**
 * Kysely table types of the search index and link graph (migration 0002_notes_index), and the
 * handle every function of this folder takes: any Kysely database whose tables include these.
 */
import type { Generated, Kysely } from "kysely";

export interface NoteIndexTable {
  user_id: string;
  path: string;
  folder: string;
  title: string;
  tags: string[];
  tag_keys: string[];
  content_hash: string;
  mtime: Date;
  size: number;
  body: string;
  /** Written by the indexer with SQL (to_tsvector); never read as a value. */
  tsv: string;
  indexed_at: Generated<Date>;
}

export type LinkKind = "wiki" | "embed" | "markdown";

export interface NoteLinksTable {
  user_id: string;
  source_path: string;
  target_path: string;
  kind: LinkKind;
}

export interface SearchTables {
  note_index: NoteIndexTable;
  note_links: NoteLinksTable;
}

/** The vault's database handle, seen through the tables this folder uses. */
export type SearchDb = Kysely<SearchTables>;
