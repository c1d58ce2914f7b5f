/**
 * Highlighted snippets, made in process from the indexed text and the lexemes of the query.
 *
 * PostgreSQL's ts_headline does this too, but it parses the whole note again for every hit: on
 * PGlite that was about 2.5 ms per 1.5 KB note, 50 ms for a page of 20, more than the whole search
 * budget. Here a word is highlighted when its lower-cased form equals an exact lexeme, starts with a
 * prefix lexeme, or is a form of a stemmed (english) lexeme: snowball stems are the word cut short,
 * with a final y turned into i ("retries" and "retry" both stem to "retri"), so a word counts when it
 * starts with the stem (or the stem with its i back as y) and adds at most a few letters. That test
 * can light up a word PostgreSQL would not have matched, never hide one it did; it only decides
 * what is marked, not what is found.
 *
 * Output is safe HTML: the text is escaped and only <mark> elements are added.
 */

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};
const WORD = /[\p{L}\p{N}]+/gu;
/** Letters a word may have beyond its stem and still count as a form of it ("connect" + "ions"). */
const MAX_SUFFIX = 4;

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

/** What a query asks for, as words to mark. */
export interface QueryTerms {
  /** Lower-cased words as typed (the `simple` lexemes). */
  exact: Set<string>;
  /** Stems (the `english` lexemes). */
  stems: Set<string>;
  prefixes: string[];
}

/**
 * Terms from the text form of two tsqueries (`'retri' & 'pagin':*`): the stemmed one and the one
 * with exact words and prefixes. Pass only what was asked for, not what was excluded.
 */
export function queryTerms(stemmed: string, exact: string): QueryTerms {
  const terms: QueryTerms = { exact: new Set(), stems: new Set(), prefixes: [] };
  for (const [text, stems] of [[stemmed, true], [exact, false]] as const) {
    for (const m of text.matchAll(/'((?:[^'\\]|''|\\.)*)'(:\*)?/g)) {
      const lexeme = m[1]!.replaceAll("''", "'").replace(/\\(.)/g, "$1");
      if (m[2]) terms.prefixes.push(lexeme);
      else (stems ? terms.stems : terms.exact).add(lexeme);
    }
  }
  return terms;
}

/**
 * A snippet of about `words` words from `text` around the densest run of matches, as HTML with the
 * matches in <mark>; the start of the text when nothing matches.
 */
export function snippetHtml(text: string, terms: QueryTerms, words = 30): string {
  const tokens = [...text.matchAll(WORD)];
  if (tokens.length === 0) return "";
  const hit = tokens.map((t) => matches(t[0].toLowerCase(), terms));
  // The window of `words` tokens with the most distinct matched words; the earliest on a tie.
  let best = 0;
  let bestScore = -1;
  for (let start = 0; start < tokens.length; start++) {
    if (start > 0 && !hit[start]) continue; // a best window starts at a match (or at the beginning)
    const seen = new Set<string>();
    for (let i = start; i < Math.min(tokens.length, start + words); i++) {
      if (hit[i]) seen.add(tokens[i]![0].toLowerCase());
    }
    if (seen.size > bestScore) {
      best = start;
      bestScore = seen.size;
    }
    if (bestScore >= terms.exact.size + terms.prefixes.length) break; // cannot do better
  }
  // Start a few words before the first match, so it is read in context.
  const from = bestScore > 0 ? Math.max(0, best - 4) : 0;
  const to = Math.min(tokens.length, from + words);
  const startAt = from === 0 ? 0 : tokens[from]!.index!;
  const last = tokens[to - 1]!;
  const endAt = to === tokens.length ? text.length : last.index! + last[0].length;
  let out = from > 0 ? "… " : "";
  let at = startAt;
  for (let i = from; i < to; i++) {
    const t = tokens[i]!;
    out += escapeHtml(collapse(text.slice(at, t.index!)));
    out += hit[i] ? `<mark>${escapeHtml(t[0])}</mark>` : escapeHtml(t[0]);
    at = t.index! + t[0].length;
  }
  out += escapeHtml(collapse(text.slice(at, endAt)));
  return (to < tokens.length ? `${out} …` : out).trim();
}

function matches(word: string, terms: QueryTerms): boolean {
  if (terms.exact.has(word)) return true;
  for (const p of terms.prefixes) if (word.startsWith(p)) return true;
  for (const stem of terms.stems) {
    if (word.length - stem.length > MAX_SUFFIX || word.length < stem.length) continue;
    if (word.startsWith(stem)) return true;
    if (stem.endsWith("i") && word.startsWith(`${stem.slice(0, -1)}y`)) return true;
  }
  return false;
}

function collapse(text: string): string {
  return text.replace(/\s+/gu, " ");
}
