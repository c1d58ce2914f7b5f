/**
 * Owner, tags and folder of a note, written into its tsvector as extra lexemes, so one GIN lookup
 * answers "these words, for this user, with this tag, in this folder" and PostgreSQL visits only
 * the notes that match all of it. Filtering in SQL after a text lookup visited every note with the
 * words (half the vault for a common word at 10k notes) and cost more than the ranking.
 *
 * Each marker starts with a letter and a space ("u alice", "t project/atlas", "f work/2024"). The
 * text parser never makes a lexeme with a space, so no word of a note can pass for a marker.
 */
import type { SearchQuery } from "./parse_search_query.ts";

export const userLexeme = (userId: string): string => `u ${userId}`;
export const tagLexeme = (tagKey: string): string => `t ${tagKey}`;
export const folderLexeme = (folderKey: string): string => `f ${folderKey}`;
/** What every folder marker starts with (to remove them when a note moves). */
export const FOLDER_LEXEME_PREFIX = "f ";

/** Lower-cased folder and its ancestors: "Work/2024" -> ["work", "work/2024"]; "" -> []. */
export function folderKeys(folder: string): string[] {
  const parts = folder.toLowerCase().split("/").filter(Boolean);
  return parts.map((_, i) => parts.slice(0, i + 1).join("/"));
}

/** The marker lexemes of one note. */
export function noteLexemes(userId: string, folder: string, tagKeys: readonly string[]): string[] {
  return [userLexeme(userId), ...tagKeys.map(tagLexeme), ...folderKeys(folder).map(folderLexeme)];
}

/** A lexeme as tsquery text: quoted, with quotes and backslashes escaped. */
export function quoteLexeme(lexeme: string): string {
  return `'${lexeme.replaceAll("\\", "\\\\").replaceAll("'", "''")}'`;
}

/**
 * The filter part of a search as tsquery text: one of the owners, all the tags, one of the
 * folders, none of the excluded tags or folders. `owners` are the user ids whose notes are in scope
 * (finer limits, such as a shared folder, stay in SQL).
 */
export function filterTsqueryText(owners: readonly string[], query: SearchQuery): string {
  const any = (lexemes: string[]) => `( ${lexemes.map(quoteLexeme).join(" | ")} )`;
  const parts = [any([...new Set(owners)].map(userLexeme))];
  for (const tag of query.tags) parts.push(quoteLexeme(tagLexeme(tag)));
  if (query.folders.length > 0) parts.push(any(query.folders.map(folderLexeme)));
  for (const tag of query.excludeTags) parts.push(`!${quoteLexeme(tagLexeme(tag))}`);
  for (const folder of query.excludeFolders) parts.push(`!${quoteLexeme(folderLexeme(folder))}`);
  return parts.join(" & ");
}
