/**
 * Highlighted snippets, made in process from the note text of a page's hits and the words of the query.
 *
 * (PostgreSQL's ts_headline parsed the whole note again for every hit: on PGlite about 2.5 ms per
 * 1.5 KB note, more than the whole search budget for a page of 20.) A word is highlighted when its
 * lower-cased form equals a word asked for, starts with a prefix asked for, or is a form of a stem
 * asked for: snowball stems are the word cut short, with a final y turned into i ("retries" and
 * "retry" both stem to "retri"), so a word counts when it starts with the stem (or the stem with its
 * i back as y) and adds at most a few letters. That test can light up a word the index did not
 * match, never hide one it did; it only decides what is marked, not what is found.
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
  /** Lower-cased words as typed. */
  exact: Set<string>;
  /** Their Snowball English stems. */
  stems: Set<string>;
  prefixes: string[];
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
