/**
 * Kysely table types of the search index and link graph (migrations 0002_notes_index and 0007_search_changes), and the
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
  indexed_at: Generated<Date>;
  /** Moves on every insert and update (migration 0007): how the in-process index catches up. */
  change_seq: Generated<string>;
}

/** The (user, path) of every row deleted from note_index, and the old path of every row moved. */
export interface NoteDeletionsTable {
  seq: Generated<string>;
  user_id: string;
  path: string;
  deleted_at: Generated<Date>;
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
  note_deletions: NoteDeletionsTable;
}

/** The vault's database handle, seen through the tables this folder uses. */
export type SearchDb = Kysely<SearchTables>;
