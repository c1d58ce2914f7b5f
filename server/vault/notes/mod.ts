/**
 * The vault's note storage: each user's notes as Markdown files under `<dataDir>/users/<userId>/`
 * (the files are the source of truth), with the link graph, tags, daily notes, templates, canvases,
 * attachments and a watcher for edits made on disk. No HTTP and no database here: the routes call
 * this typed API and map `NoteError.status` to their responses.
 *
 * Limits: paths 500 characters (`MAX_PATH_CHARS`), notes and canvases 1 MiB (`MAX_NOTE_BYTES`),
 * attachments 20 MiB (`MAX_ATTACHMENT_BYTES`), PNG, JPEG, GIF, WebP, SVG and PDF only.
 *
 * @example
 * const store = new NoteStore({ dataDir, onChange: (c) => events.publish(c) });
 * const watcher = watchVault(store); // what it finds on disk reaches the store's onChange (once)
 * const { note } = await openDailyNote(store, userId, new Date(), { folder: "Daily", template: "Templates/Daily.md" });
 * try {
 *   await store.update(userId, note.path, text, { ifVersion: clientVersion });
 * } catch (err) {
 *   if (err instanceof ConflictError) return c.json({ error: err.message, currentVersion: err.currentVersion }, 409);
 *   throw err;
 * }
 * const backlinks = (await store.index(userId)).backlinks(note.path);
 */
export {
  type CanvasIssue,
  ConflictError,
  InvalidCanvasError,
  InvalidPathError,
  NoteError,
  type NoteErrorCode,
} from "./errors.ts";
export { MAX_PATH_CHARS, normalizeNotePath, resolveInside } from "./safe_path.ts";
export { removeLeftoverTemps } from "./atomic_write.ts";
export { NoteStore, type NoteStoreOptions } from "./note_store.ts";
export {
  type Attachment,
  type ImportFile,
  type ImportOutcome,
  MAX_NOTE_BYTES,
  type Note,
  type NoteChange,
  type NoteMeta,
  OBSIDIAN_DIR,
  type RenameResult,
  TRASH_DIR,
  type TrashEntry,
} from "./note_types.ts";
export { type EntryKind, entryKind, type TreeEntry } from "./walk_vault.ts";
export { type Backlink, type GraphEdge, NoteIndex } from "./note_index.ts";
export { type ParsedNote, parseNote } from "./parse_note.ts";
export { extractLinks, type MarkdownLink, type NoteLink, type WikiLink } from "./links.ts";
export {
  candidateNames,
  fileName,
  linkNamesFor,
  type LinkSpec,
  linkSpec,
  PathSet,
  resolveLink,
  resolveSpec,
  resolveTarget,
  shortestLinkText,
} from "./resolve_link.ts";
export { type Canvas, canvasSchema, formatCanvas, parseCanvas } from "./canvas.ts";
export {
  attachmentHeaders,
  type AttachmentType,
  MAX_ATTACHMENT_BYTES,
  sniffType,
  SVG_CSP,
} from "./attachment_type.ts";
export { formatDate, isTimeZone } from "./date_format.ts";
export { renderTemplate, type TemplateVars } from "./template.ts";
export {
  createFromTemplate,
  dailyNotePath,
  type DailyNotesConfig,
  dailyNotesConfigSchema,
  listTemplates,
  openDailyNote,
} from "./daily_note.ts";
export { type VaultWatcher, type VaultWatcherOptions, watchVault } from "./vault_watcher.ts";
