/**
 * Ranked full-text search over a user's notes (and notes shared with them), with filters,
 * highlighted snippets and paging, answered by PostgreSQL from the index (note_index.ts).
 *
 * Ranking is ts_rank with weights title 1.0, tags 0.4, body 0.2, normalised by document length
 * (so a long note that mentions a word once does not beat a short one about it), then newest first,
 * then path. Snippets are made in process (snippet_html.ts): HTML-escaped, matches in <mark>.
 *
 * @example
 * const page = await searchNotes(db, { userId }, 'tag:work "error budget" retr*', { limit: 20 });
 * for (const hit of page.hits) console.log(hit.path, hit.score, hit.snippet);
 */
import { type RawBuilder, sql } from "kysely";
import { parseSearchQuery, type SearchQuery } from "./parse_search_query.ts";
import type { SearchDb } from "./schema.ts";
import { filterTsqueryText } from "./filter_lexemes.ts";
import { type QueryTerms, queryTerms, snippetHtml } from "./snippet_html.ts";
import { highlightLexemesSql, tsquerySql } from "./to_tsquery_sql.ts";

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

/** Title A, tags B, body C; D is unused. */
const WEIGHTS = "{0.05, 0.2, 0.4, 1.0}";
/** ts_rank normalisation 1: divide by 1 + log(document length). */
const NORMALISATION = 1;

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
  // The GIN index narrows to owner, tags, folders and words at once (filter_lexemes.ts); the SQL
  // conditions then apply what lexemes cannot say exactly (a shared folder's case, path substrings).
  const owners = [scope.userId, ...(scope.shared ?? []).map((s) => s.ownerId)];
  const filter = sql<string>`${filterTsqueryText(owners, parsed)}::tsquery`;
  const where = [scopeSql(scope), ...pathSql(parsed)];
  const { rows, terms, count } = await db.transaction().execute(async (tx) => {
    // For a common word the planner may pick a sequential or a user-wide scan, evaluating @@ on
    // every note's tsvector; the GIN bitmap scan reads only the matches (3 to 10 times faster).
    await sql`set local enable_seqscan = off`.execute(tx);
    return parsed.include.length > 0
      ? await textSearch(tx, parsed, filter, where, limit, offset)
      : await filterList(tx, filter, where, limit, offset);
  });
  return {
    total: Math.min(count, SEARCH_LIMITS.countCap),
    totalCapped: count > SEARCH_LIMITS.countCap,
    offset,
    limit,
    hits: rows.map((r) => ({
      ownerId: r.user_id,
      path: r.path,
      folder: r.folder,
      title: r.title,
      tags: r.tags,
      mtime: r.mtime,
      size: r.size,
      score: Math.round(Number(r.score) * 1e6) / 1e6,
      snippet: snippetHtml(r.body, terms),
    })),
  };
}

interface Row {
  user_id: string;
  path: string;
  folder: string;
  title: string;
  tags: string[];
  mtime: Date;
  size: number;
  score: number | string;
  body: string;
  /** The text of the stemmed and of the exact highlight query (text searches only). */
  stems?: string | null;
  exact?: string | null;
}

interface Found {
  rows: Row[];
  terms: QueryTerms;
  /** Matches, counted up to one past the cap: a UI shows "1000+", and the count stays cheap. */
  count: number;
}

const NO_TERMS: QueryTerms = { exact: new Set(), stems: new Set(), prefixes: [] };

/**
 * The tsquery is computed once, in a MATERIALIZED CTE. Written inline it would be folded into a
 * constant and the planner would estimate its matches, then often prefer scanning all of the user's
 * notes and testing each tsvector, which measured 3 to 7 times slower than the GIN lookup. Every match
 * is ranked to order them (by the words only: the filter lexemes would count as matches); only the
 * page's rows are read in full. The count is a second, capped scan: counting in the same pass
 * (count(*) over ()) spooled every match with its tsvector and was 5 to 10 times slower.
 */
async function textSearch(
  db: SearchDb,
  query: SearchQuery,
  filter: RawBuilder<string>,
  where: RawBuilder<boolean>[],
  limit: number,
  offset: number,
): Promise<Found> {
  const text = tsquerySql(query.include, query.exclude);
  // Snippets mark what was asked for, not what was excluded.
  const stems = highlightLexemesSql(query.include, "english") ?? sql`''`;
  const exact = highlightLexemesSql(query.include, "simple") ?? sql`''`;
  const { rows } = await sql<Row & { total: number | string }>`
    with q as materialized (select ${text} as t, (${text} && ${filter}) as m, ${stems} as stems, ${exact} as exact),
    page as (
      select n.user_id, n.path, ts_rank(${WEIGHTS}::float4[], n.tsv, q.t, ${NORMALISATION}) as score
      from note_index n, q
      where n.tsv @@ q.m and ${sql.join(where, sql` and `)}
      order by score desc, n.mtime desc, n.path
      limit ${limit} offset ${offset}
    ),
    counted as (
      select count(*) as total from (
        select 1 from note_index n, q where n.tsv @@ q.m and ${sql.join(where, sql` and `)}
        limit ${SEARCH_LIMITS.countCap + 1}
      ) m
    )
    -- The count comes back on every row, and on one row of nulls when the page is empty.
    select n.user_id, n.path, n.folder, n.title, n.tags, n.mtime, n.size, page.score, n.body,
      q.stems, q.exact, counted.total
    from counted cross join q
      left join page on true
      left join note_index n on n.user_id = page.user_id and n.path = page.path
    order by page.score desc, n.mtime desc, n.path
  `.execute(db);
  const hits = rows.filter((r) => r.path !== null);
  const first = hits[0];
  return {
    rows: hits,
    terms: first ? queryTerms(first.stems ?? "", first.exact ?? "") : NO_TERMS,
    count: Number(rows[0]?.total ?? 0),
  };
}

async function filterList(
  db: SearchDb,
  filter: RawBuilder<string>,
  where: RawBuilder<boolean>[],
  limit: number,
  offset: number,
): Promise<Found> {
  const { rows } = await sql<Row & { total: number | string }>`
    with q as materialized (select ${filter} as m),
    counted as (
      select count(*) as total from (
        select 1 from note_index n, q where n.tsv @@ q.m and ${sql.join(where, sql` and `)}
        limit ${SEARCH_LIMITS.countCap + 1}
      ) m
    ),
    page as (
      select n.user_id, n.path, n.folder, n.title, n.tags, n.mtime, n.size, 0 as score,
        left(n.body, 2000) as body
      from note_index n, q
      where n.tsv @@ q.m and ${sql.join(where, sql` and `)}
      order by n.mtime desc, n.path
      limit ${limit} offset ${offset}
    )
    select page.*, counted.total from counted left join page on true order by page.mtime desc, page.path
  `.execute(db);
  return {
    rows: rows.filter((r) => r.path !== null),
    terms: NO_TERMS,
    count: Number(rows[0]?.total ?? 0),
  };
}

function scopeSql(scope: SearchScope): RawBuilder<boolean> {
  const parts = [sql<boolean>`n.user_id = ${scope.userId}`];
  for (const share of scope.shared ?? []) {
    parts.push(
      share.path.endsWith("/")
        ? sql<boolean>`(n.user_id = ${share.ownerId} and starts_with(n.path, ${share.path}))`
        : sql<boolean>`(n.user_id = ${share.ownerId} and n.path = ${share.path})`,
    );
  }
  return sql<boolean>`(${sql.join(parts, sql` or `)})`;
}

/** Path substrings: not something lexemes can hold, so checked in SQL on the notes found. */
function pathSql(query: SearchQuery): RawBuilder<boolean>[] {
  const inPath = (text: string) => sql<boolean>`strpos(lower(n.path), ${text}) > 0`;
  return [
    ...query.paths.map(inPath),
    ...query.excludePaths.map((text) => sql<boolean>`not ${inPath(text)}`),
  ];
}
