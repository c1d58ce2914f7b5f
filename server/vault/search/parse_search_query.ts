/**
 * The vault's search syntax, parsed without touching the database:
 *
 *   retry budget            notes with both words (stemmed: "retries" finds "retry")
 *   "connection pool"       the words next to each other, in this order
 *   pagin*                  words starting with "pagin" (at least 2 characters before the *)
 *   redis OR kafka          either word (OR binds the two terms next to it)
 *   -draft  -"old plan"     notes without the word or phrase
 *   tag:work  #work         notes tagged work or a nested tag under it (work/meetings)
 *   folder:Projects/Atlas   notes in that folder or below it (several folder: filters: any of them)
 *   path:2024-              notes whose path contains the text
 *   -tag:x -folder:x -path:x  the same filters, excluded
 *
 * Filter values may be quoted (folder:"My Notes"); filters match case-insensitively. A query of
 * filters only lists the matching notes. Anything malformed throws a SearchQueryError, whose
 * message is written for the person who typed the query (a route answers it with 400).
 */

export const QUERY_LIMITS = {
  /** Characters in one query. */
  maxLength: 1000,
  /** Words, phrases, prefixes and filters in one query. */
  maxClauses: 32,
  /** Characters a prefix needs before its `*`. */
  minPrefix: 2,
} as const;

/** A malformed query; `message` says what to fix, `position` is the 0-based character where it is. */
export class SearchQueryError extends Error {
  override name = "SearchQueryError";
  constructor(message: string, readonly position?: number) {
    super(message);
  }
}

/** Something to find in the text of a note. */
export type TextClause =
  /** One word as typed; matched stemmed and exactly. May stand for several tokens ("snake_case"). */
  | { type: "word"; text: string }
  /** Words that must appear next to each other, in order. */
  | { type: "phrase"; text: string }
  /** `words` next to each other, the last one a prefix; all lower-cased letters and digits. */
  | { type: "prefix"; words: string[] }
  /** Any of the clauses (from OR). */
  | { type: "any"; of: TextClause[] };

export interface SearchQuery {
  /** All must match. */
  include: TextClause[];
  /** None may match. */
  exclude: TextClause[];
  /** Lower-cased tags, without '#'; a note needs all of them. */
  tags: string[];
  excludeTags: string[];
  /** Lower-cased folders without leading or trailing '/'; a note must be in (or under) one of them. */
  folders: string[];
  excludeFolders: string[];
  /** Lower-cased substrings; a note's path must contain all of them. */
  paths: string[];
  excludePaths: string[];
}

const FILTERS = ["tag", "folder", "path"] as const;
type Filter = (typeof FILTERS)[number];

/** A letter or digit: a clause with none of them has nothing the full-text index could match. */
const SEARCHABLE = /[\p{L}\p{N}]/u;
const WORDS = /[\p{L}\p{N}]+/gu;

interface Token {
  negated: boolean;
  position: number;
  /** A filter's key, when the token is `key:value`. */
  filter?: Filter;
  text: string;
  quoted: boolean;
}

/** Parses a query typed by a user; throws SearchQueryError when it cannot be searched. */
export function parseSearchQuery(input: string): SearchQuery {
  if (input.length > QUERY_LIMITS.maxLength) {
    throw new SearchQueryError(`the query is longer than ${QUERY_LIMITS.maxLength} characters`);
  }
  const query: SearchQuery = {
    include: [],
    exclude: [],
    tags: [],
    excludeTags: [],
    folders: [],
    excludeFolders: [],
    paths: [],
    excludePaths: [],
  };
  // Control characters (NUL among them, which PostgreSQL text cannot hold) separate words like spaces.
  const tokens = tokenize(input.normalize("NFC").replace(/\p{Cc}/gu, " "));
  if (tokens.length === 0) throw new SearchQueryError("the query is empty");
  if (tokens.length > QUERY_LIMITS.maxClauses) {
    throw new SearchQueryError(`the query has more than ${QUERY_LIMITS.maxClauses} words and filters`);
  }

  let pendingOr: { clause: TextClause; position: number } | undefined;
  let previous: { clause: TextClause; negated: boolean; index: number } | undefined;
  for (const token of tokens) {
    const isOr = !token.quoted && !token.negated && !token.filter && token.text === "OR";
    if (isOr) {
      if (!previous || previous.negated || pendingOr) {
        throw new SearchQueryError("OR needs a word or phrase on its left", token.position);
      }
      pendingOr = { clause: previous.clause, position: token.position };
      continue;
    }
    if (token.filter) {
      if (pendingOr) throw new SearchQueryError("OR cannot join filters", pendingOr.position);
      addFilter(query, token);
      previous = undefined;
      continue;
    }
    const clause = textClause(token);
    if (!clause) {
      if (pendingOr) throw new SearchQueryError("OR needs a word or phrase on its right", pendingOr.position);
      continue; // punctuation only: nothing to match, nothing to complain about
    }
    if (pendingOr) {
      if (token.negated) throw new SearchQueryError("OR cannot join an excluded term", token.position);
      const left = pendingOr.clause;
      const merged: TextClause = {
        type: "any",
        of: [...(left.type === "any" ? left.of : [left]), clause],
      };
      const index = previous!.index;
      query.include[index] = merged;
      previous = { clause: merged, negated: false, index };
      pendingOr = undefined;
      continue;
    }
    const list = token.negated ? query.exclude : query.include;
    list.push(clause);
    previous = { clause, negated: token.negated, index: list.length - 1 };
  }
  if (pendingOr) throw new SearchQueryError("OR needs a word or phrase on its right", pendingOr.position);

  const positive = query.include.length + query.tags.length + query.folders.length + query.paths.length;
  if (positive === 0) {
    const excluding = query.exclude.length + query.excludeTags.length + query.excludeFolders.length +
      query.excludePaths.length;
    throw new SearchQueryError(
      excluding > 0
        ? "the query only excludes; add a word, phrase or filter to search for"
        : "the query has no letters or digits to search for",
    );
  }
  return query;
}

function tokenize(input: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < input.length) {
    if (/\s/u.test(input[i]!)) {
      i++;
      continue;
    }
    const position = i;
    let negated = false;
    if (input[i] === "-" && i + 1 < input.length && !/\s/u.test(input[i + 1]!)) {
      negated = true;
      i++;
    }
    if (input[i] === '"') {
      const { text, end } = quoted(input, i);
      tokens.push({ negated, position, text, quoted: true });
      i = end;
      continue;
    }
    let end = i;
    while (end < input.length && !/\s/u.test(input[end]!) && input[end] !== '"') end++;
    const bare = input.slice(i, end);
    const colon = bare.indexOf(":");
    const key = colon > 0 ? bare.slice(0, colon).toLowerCase() : "";
    if ((FILTERS as readonly string[]).includes(key)) {
      const filter = key as Filter;
      if (colon === bare.length - 1 && input[end] === '"') {
        const value = quoted(input, end);
        tokens.push({ negated, position, filter, text: value.text, quoted: true });
        i = value.end;
      } else {
        tokens.push({ negated, position, filter, text: bare.slice(colon + 1), quoted: false });
        i = end;
      }
      continue;
    }
    if (bare.length > 1 && bare.startsWith("#") && SEARCHABLE.test(bare[1]!)) {
      tokens.push({ negated, position, filter: "tag", text: bare.slice(1), quoted: false });
    } else {
      tokens.push({ negated, position, text: bare, quoted: false });
    }
    i = end;
  }
  return tokens;
}

/** The text between the quote at `start` and the next quote. */
function quoted(input: string, start: number): { text: string; end: number } {
  const close = input.indexOf('"', start + 1);
  if (close < 0) throw new SearchQueryError("a quote is not closed", start);
  return { text: input.slice(start + 1, close), end: close + 1 };
}

function addFilter(query: SearchQuery, token: Token): void {
  const value = token.text.trim().toLowerCase();
  const filter = token.filter!;
  if (filter === "tag") {
    const tag = value.replace(/^#/, "");
    if (!tag || !SEARCHABLE.test(tag)) {
      throw new SearchQueryError("tag: needs a tag name, as in tag:work", token.position);
    }
    (token.negated ? query.excludeTags : query.tags).push(tag);
  } else if (filter === "folder") {
    const folder = value.replace(/^\/+|\/+$/g, "");
    if (!folder) {
      throw new SearchQueryError("folder: needs a folder name, as in folder:Projects/2024", token.position);
    }
    (token.negated ? query.excludeFolders : query.folders).push(folder);
  } else {
    if (!value) throw new SearchQueryError("path: needs some text, as in path:2024-", token.position);
    (token.negated ? query.excludePaths : query.paths).push(value);
  }
}

function textClause(token: Token): TextClause | undefined {
  const text = token.text.trim();
  if (!SEARCHABLE.test(text)) return undefined;
  if (token.quoted) return { type: "phrase", text };
  const star = text.indexOf("*");
  if (star < 0) return { type: "word", text };
  if (star !== text.length - 1 || text.endsWith("**")) {
    throw new SearchQueryError("* may only end a word, as in pagin*", token.position + star);
  }
  const words = text.slice(0, -1).toLowerCase().match(WORDS) ?? [];
  const last = words[words.length - 1];
  if (!last || !/[\p{L}\p{N}]$/u.test(text.slice(0, -1)) || [...last].length < QUERY_LIMITS.minPrefix) {
    throw new SearchQueryError(
      `a prefix needs at least ${QUERY_LIMITS.minPrefix} letters or digits before the *`,
      token.position,
    );
  }
  return { type: "prefix", words };
}
