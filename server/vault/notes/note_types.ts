/**
 * What the notes store (note_store.ts) takes and answers with, and the limits and folder names its
 * parts share.
 */
import type { AttachmentType } from "./attachment_type.ts";
import type { EntryKind } from "./walk_vault.ts";

/** Largest note or canvas accepted: 1 MiB (1,048,576 bytes) of UTF-8. */
export const MAX_NOTE_BYTES = 1024 * 1024;
/** Where deleted files wait, inside each user's directory. */
export const TRASH_DIR = ".trash";

export interface NoteMeta {
  path: string;
  /** Pass back as `ifVersion` to update only what was read. */
  version: string;
  size: number;
  mtime: Date;
}

export interface Note extends NoteMeta {
  content: string;
}

export interface TrashEntry {
  /** Restore handle. */
  id: string;
  /** Where the file was. */
  path: string;
  deletedAt: Date;
  size: number;
}

export interface RenameResult {
  from: string;
  to: string;
  /** Every file that moved (one for a note, all files under a folder), old -> new. */
  moved: { from: string; to: string }[];
  /** Notes whose links were rewritten to follow the move. */
  rewritten: string[];
}

export interface Attachment {
  path: string;
  type: AttachmentType;
  size: number;
  bytes: Uint8Array;
  /** Serve with these: content type, nosniff, and for SVG a CSP with `script-src 'none'`. */
  headers: Record<string, string>;
}

/** What changed, reported to `onChange` for the search index and the live event channel. */
export interface NoteChange {
  userId: string;
  kind: "created" | "changed" | "deleted" | "renamed";
  path: string;
  /** For renames: where it was. */
  from?: string;
  /** Set on changes to a folder itself (created, deleted, renamed; its files are reported too). */
  folder?: true;
  /** `store` for writes through this store, `disk` for edits made behind its back. */
  source: "store" | "disk";
}

/** One file of an import (`importFiles`). */
export interface ImportFile {
  /** Where it goes in the vault (normalised by the store); below `.obsidian/` when `aside`. */
  path: string;
  bytes: Uint8Array;
  /** Kept as the file's modification time. */
  mtime?: Date;
  /** Obsidian's settings folder, kept aside: stored below `.obsidian/`, never listed, indexed or served. */
  aside?: boolean;
}

/** What `importFiles` did with one file. */
export type ImportOutcome =
  & { path: string; aside?: boolean }
  & (
    | {
      status: "created" | "updated" | "unchanged";
      kind: EntryKind;
      version: string;
      size: number;
      mtime: Date;
      /** A note's text (for the index). */
      text?: string;
    }
    | { status: "refused"; reason: string }
  );

/** The folder, inside each user's directory, where an import keeps Obsidian's settings. */
export const OBSIDIAN_DIR = ".obsidian";

/** The error code of a failed file system call. */
export function errno(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException)?.code;
}

/** What tells one state of a file from another without reading it. */
export function statSignature(st: { ino: number; size: number; mtimeMs: number; ctimeMs: number }): string {
  return `${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
}
