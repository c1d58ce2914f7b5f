/**
 * Kysely table types of the search index and link graph (migrations 0002_notes_index, 0007_search_changes and 0009_link_targets), and the
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

/** One link as written in a note, and the file it resolves to now (migration 0009_link_targets). */
export interface NoteLinksTable {
  user_id: string;
  source_path: string;
  kind: LinkKind;
  /** Wiki links: as written; Markdown links: the destination resolved against the note's folder. */
  target: string;
  /** Markdown links: the destination as written, decoded; '' for wiki links. */
  dest: string;
  /** The lower-case file name of `target`: the link may resolve to files named this, or this plus `.md`. */
  name: string;
  /** The file it resolves to; null while no file matches (an unresolved link). */
  target_path: string | null;
}

/** Every file of each user's vault, notes, canvases and attachments alike: what links resolve against. */
export interface VaultFilesTable {
  user_id: string;
  path: string;
  /** Lower-case file name. */
  name: string;
}

export interface SearchTables {
  note_index: NoteIndexTable;
  note_links: NoteLinksTable;
  note_deletions: NoteDeletionsTable;
  vault_files: VaultFilesTable;
}

/** The vault's database handle, seen through the tables this folder uses. */
export type SearchDb = Kysely<SearchTables>;
