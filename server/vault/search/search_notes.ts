/**
 * Ranked full-text search over a user's notes (and notes shared with them), with filters,
 * highlighted snippets and paging, answered in process by the owners' internal/fulltext indexes
 * (note_search_index.ts), caught up with the database before each search.
 *
 * Ranking: a note whose query words are in its title ranks above one that has them only in its
 * tags, which ranks above one that has them only in its body; BM25F (title 5, tags 2, body 1, by
 * length) orders within each tier; then newest first, then path. Snippets are made in process
 * (snippet_html.ts) from the note text of the page's hits only: HTML-escaped, matches in <mark>.
 *
 * @example
 * const page = await searchNotes(db, { userId }, 'tag:work "error budget" retr*', { limit: 20 });
 * for (const hit of page.hits) console.log(hit.path, hit.score, hit.snippet);
 */
import {
  type MatchClause,
  type MatchGroup,
  type MatchTerm,
  stem,
  words,
} from "../../../internal/fulltext/mod.ts";
import { folderKey, type NoteMeta, noteSearchIndex, tagKey } from "./note_search_index.ts";
import { parseSearchQuery, type SearchQuery, type TextClause } from "./parse_search_query.ts";
import type { SearchDb } from "./schema.ts";
import { type QueryTerms, snippetHtml } from "./snippet_html.ts";

export const SEARCH_LIMITS = {
  defaultLimit: 20,
  maxLimit: 100,
  /** Deep paging ranks every match again; past this, refine the query. */
  maxOffset: 10_000,
  /** Matches are counted up to this; past it the total says "at least" (totalCapped). */
  countCap: 1_000,
} as const;

/** Whose notes a search covers: the caller's, plus what other users shared with them. */
export interface SearchScope {
  userId: string;
  shared?: readonly SharedNotes[];
}

export interface SharedNotes {
  ownerId: string;
  /** A note path, or a folder ending in "/" (matched by prefix, so "Work/" never matches "Worklog/"). */
  path: string;
}

export interface SearchOptions {
  limit?: number;
  offset?: number;
}

export interface SearchHit {
  ownerId: string;
  path: string;
  folder: string;
  title: string;
  tags: string[];
  mtime: Date;
  size: number;
  /** Relevance (higher is better); 0 for a filters-only query, which lists newest first. */
  score: number;
  /** HTML: escaped text of the note around the matches, matches in <mark>. */
  snippet: string;
}

export interface SearchPage {
  /** Matches in all, not only on this page, counted up to SEARCH_LIMITS.countCap. */
  total: number;
  /** True when there are more matches than `total` (more than SEARCH_LIMITS.countCap). */
  totalCapped: boolean;
  offset: number;
  limit: number;
  hits: SearchHit[];
}

/** Characters of a note shown as the snippet of a filters-only listing. */
const LISTING_SNIPPET_CHARS = 2000;

/** Parses `query` (SearchQueryError when malformed) and returns one page of hits. */
export async function searchNotes(
  db: SearchDb,
  scope: SearchScope,
  query: string | SearchQuery,
  options: SearchOptions = {},
): Promise<SearchPage> {
  const parsed = typeof query === "string" ? parseSearchQuery(query) : query;
  const limit = options.limit ?? SEARCH_LIMITS.defaultLimit;
  const offset = options.offset ?? 0;
  if (!Number.isInteger(limit) || limit < 1 || limit > SEARCH_LIMITS.maxLimit) {
    throw new RangeError(`limit must be an integer from 1 to ${SEARCH_LIMITS.maxLimit}`);
  }
  if (!Number.isInteger(offset) || offset < 0 || offset > SEARCH_LIMITS.maxOffset) {
    throw new RangeError(`offset must be an integer from 0 to ${SEARCH_LIMITS.maxOffset}`);
  }
  // Each owner's index answers for its notes: the caller's all, another owner's only what they shared.
  const shares = new Map<string, SharedNotes[]>();
  for (const share of scope.shared ?? []) {
    if (share.ownerId === scope.userId) continue;
    shares.set(share.ownerId, [...(shares.get(share.ownerId) ?? []), share]);
  }
  const indexes = await noteSearchIndex(db).ready([scope.userId, ...shares.keys()]);
  const match = matchQuery(parsed);
  const byPath = parsed.paths.length > 0 || parsed.excludePaths.length > 0;
  const inPaths = (_: NoteMeta, path: string) => {
    if (!byPath) return true;
    const lower = path.toLowerCase();
    return parsed.paths.every((p) => lower.includes(p)) &&
      !parsed.excludePaths.some((p) => lower.includes(p));
  };
  const found: { ownerId: string; path: string; score: number; mtime: number; change: number }[] = [];
  let total = 0, capped = false;
  for (const [ownerId, index] of indexes) {
    const shared = shares.get(ownerId);
    const page = index.match(match, {
      limit: offset + limit,
      countCap: SEARCH_LIMITS.countCap,
      tiebreak: newestFirst,
      accept: shared
        ? (m, path) =>
          inPaths(m, path) &&
          shared.some((s) => s.path.endsWith("/") ? path.startsWith(s.path) : path === s.path)
        : inPaths,
    });
    total += page.total;
    capped ||= page.totalCapped;
    for (const hit of page.hits) {
      const meta = index.meta(hit.id)!;
      found.push({ ownerId, path: hit.id, score: hit.score, mtime: meta.mtime, change: meta.change });
    }
  }
  found.sort((a, b) =>
    b.score - a.score || b.mtime - a.mtime || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0) ||
    (a.ownerId < b.ownerId ? -1 : 1)
  );
  const hits = found.slice(offset, offset + limit);
  const listing = parsed.include.length === 0;
  const rows = await noteSearchIndex(db).rows.read(db, hits);
  const terms = listing ? NO_TERMS : highlightTerms(parsed.include);
  return {
    total: Math.min(total, SEARCH_LIMITS.countCap),
    totalCapped: capped || total > SEARCH_LIMITS.countCap,
    offset,
    limit,
    hits: hits.flatMap((h) => {
      const r = rows.get(`${h.ownerId}\0${h.path}`);
      if (!r) {
        noteSearchIndex(db).evict(h.ownerId, h.path); // deleted since; the deletion log agrees
        return [];
      }
      return [{
        ownerId: h.ownerId,
        path: r.path,
        folder: r.folder,
        title: r.title,
        tags: r.tags,
        mtime: r.mtime,
        size: r.size,
        score: Math.round(h.score * 1e6) / 1e6,
        snippet: listing
          ? snippetHtml(r.body.slice(0, LISTING_SNIPPET_CHARS), terms)
          : snippetHtml(r.body, terms),
      }];
    }),
  };
}

const newestFirst = (a: NoteMeta, b: NoteMeta) => b.mtime - a.mtime;

const NO_TERMS: QueryTerms = { exact: new Set(), stems: new Set(), prefixes: [] };

/**
 * The parsed query as internal/fulltext clauses: every text clause must match (a word by its stem,
 * so "retries" finds "retry"; several tokens, as in "snake_case", and phrases as a phrase; a prefix
 * over exact unstemmed words); tags each, folders any of them, as filter keys that do not rank.
 */
export function matchQuery(query: SearchQuery): { clauses: MatchClause[]; exclude: MatchClause[] } {
  const filter = (keys: string[]): MatchClause => ({
    anyOf: keys.map((k) => ({ words: [[k]] })),
    scored: false,
  });
  const clauses = query.include.map(textClause);
  for (const tag of query.tags) clauses.push(filter([tagKey(tag)]));
  if (query.folders.length) clauses.push(filter(query.folders.map(folderKey)));
  return {
    clauses,
    exclude: [
      ...query.exclude.map(textClause),
      ...query.excludeTags.map((t) => filter([tagKey(t)])),
      ...query.excludeFolders.map((f) => filter([folderKey(f)])),
    ],
  };
}

function textClause(clause: TextClause): MatchClause {
  return { anyOf: groups(clause) };
}

function groups(clause: TextClause): MatchGroup[] {
  switch (clause.type) {
    case "word":
    case "phrase": {
      const ws = words(clause.text);
      return ws.length ? [{ words: ws.map((w) => [stem(w)]), phrase: true }] : [];
    }
    case "prefix": {
      const positions: MatchTerm[][] = clause.words.map((w, i) =>
        i === clause.words.length - 1 ? [{ prefix: w }] : [`=${w}`]
      );
      return [{ words: positions, phrase: true }];
    }
    case "any":
      return clause.of.flatMap(groups);
  }
}

/** What to mark in snippets: the words asked for (exactly and by stem) and the prefixes. */
function highlightTerms(include: readonly TextClause[]): QueryTerms {
  const terms: QueryTerms = { exact: new Set(), stems: new Set(), prefixes: [] };
  const walk = (clause: TextClause) => {
    if (clause.type === "any") clause.of.forEach(walk);
    else if (clause.type === "prefix") {
      clause.words.slice(0, -1).forEach((w) => terms.exact.add(w));
      terms.prefixes.push(clause.words.at(-1)!);
    } else {
      for (const w of words(clause.text)) {
        terms.exact.add(w);
        terms.stems.add(stem(w));
      }
    }
  };
  include.forEach(walk);
  return terms;
}
