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
/** A word's characters: letters and digits of any script (a word is a run of them). */
const WORD_CHAR = /^[\p{L}\p{N}]$/u;
/** Letters a word may have beyond its stem and still count as a form of it ("connect" + "ions"). */
const MAX_SUFFIX = 4;

export function escapeHtml(text: string): string {
  return SPECIAL.test(text) ? text.replace(/[&<>"']/g, (c) => ESCAPES[c]!) : text;
}

const SPECIAL = /[&<>"']/;

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
  // Token starts and ends in two arrays, the matched ones' lower-cased words beside them: a page of 20
  // hits made 5,000 match objects before (about half of a search at 1,000 notes).
  const starts: number[] = [];
  const ends: number[] = [];
  const hit: (string | undefined)[] = [];
  const firsts = firstLetters(terms);
  let at = 0, done = false;
  // Tokens are read as far as the windows looked at need: a window that holds every word asked for ends
  // the search, and the text after it is never split into words (most of a search's snippet time).
  const upTo = (k: number): number => {
    while (!done && starts.length <= k) {
      const start = nextWord(text, at);
      if (start < 0) {
        done = true;
        break;
      }
      const end = wordEnd(text, start);
      starts.push(start);
      ends.push(end);
      at = end;
      // Most words start with a letter no term starts with: not lower-cased, not looked up.
      const c = text.charCodeAt(start);
      if (c < 128 && !firsts.has(c | 0x20)) {
        hit.push(undefined);
        continue;
      }
      const lower = text.slice(start, end).toLowerCase();
      hit.push(matches(lower, terms) ? lower : undefined);
    }
    return starts.length;
  };
  if (upTo(0) === 0) return "";
  // The window of `words` tokens with the most distinct matched words; the earliest on a tie. A best
  // window starts at a match (or at the beginning); the window's counts slide along.
  const inWindow = new Map<string, number>();
  const add = (w: string | undefined, by: number) => {
    if (w === undefined) return;
    const c = (inWindow.get(w) ?? 0) + by;
    if (c === 0) inWindow.delete(w);
    else inWindow.set(w, c);
  };
  for (let i = 0; i < Math.min(upTo(words - 1), words); i++) add(hit[i], 1);
  let best = 0;
  let bestScore = -1;
  const enough = terms.exact.size + terms.prefixes.length;
  for (let start = 0; upTo(start) > start; start++) {
    if (start > 0) {
      add(hit[start - 1], -1);
      if (upTo(start + words - 1) > start + words - 1) add(hit[start + words - 1], 1);
      if (hit[start] === undefined) continue;
    }
    if (inWindow.size > bestScore) {
      best = start;
      bestScore = inWindow.size;
    }
    if (bestScore >= enough) break; // cannot do better
  }
  // Start a few words before the first match, so it is read in context.
  const from = bestScore > 0 ? Math.max(0, best - 4) : 0;
  const n = upTo(from + words);
  const to = Math.min(n, from + words);
  const startAt = from === 0 ? 0 : starts[from]!;
  const endAt = to === n ? text.length : ends[to - 1]!;
  let out = from > 0 ? "… " : "";
  let pos = startAt;
  for (let i = from; i < to; i++) {
    out += escapeHtml(collapse(text.slice(pos, starts[i]!)));
    const word = text.slice(starts[i]!, ends[i]!);
    out += hit[i] !== undefined ? `<mark>${escapeHtml(word)}</mark>` : escapeHtml(word);
    pos = ends[i]!;
  }
  out += escapeHtml(collapse(text.slice(pos, endAt)));
  return (to < n ? `${out} …` : out).trim();
}

/**
 * The lower-cased ASCII first letters (as char codes) a matching word can start with; a word whose
 * first character is any non-ASCII one is always looked at.
 */
function firstLetters(terms: QueryTerms): Set<number> {
  const out = new Set<number>();
  for (const list of [terms.exact, terms.stems, terms.prefixes]) {
    for (const t of list) {
      const c = t.charCodeAt(0);
      if (c < 128) out.add(c | 0x20);
      // "y" for a stem ending in "i" only changes the end; the first letter stays.
    }
  }
  return out;
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
  return text === " " ? text : text.replace(/\s+/gu, " ");
}

/** The length (1 or 2 code units) of the word character at `i`, or 0 when it is not one. */
function wordChar(text: string, i: number): number {
  if (i >= text.length) return 0;
  const c = text.charCodeAt(i);
  if (c < 128) return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) ? 1 : 0;
  const cp = text.codePointAt(i)!;
  return WORD_CHAR.test(String.fromCodePoint(cp)) ? (cp > 0xffff ? 2 : 1) : 0;
}

/** ASCII letters and digits, by char code (the tokenizer's fast path; other characters ask wordChar). */
const ASCII_WORD = new Uint8Array(128).map((_, c) =>
  (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) ? 1 : 0
);

/** Where the next word starts at or after `from`; -1 when none does. */
function nextWord(text: string, from: number): number {
  for (let i = from; i < text.length;) {
    const c = text.charCodeAt(i);
    if (c < 128) {
      if (ASCII_WORD[c]) return i;
      i++;
      continue;
    }
    if (wordChar(text, i)) return i;
    i += text.codePointAt(i)! > 0xffff ? 2 : 1;
  }
  return -1;
}

/** Where the word starting at `start` ends. */
function wordEnd(text: string, start: number): number {
  let i = start;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c < 128) {
      if (!ASCII_WORD[c]) break;
      i++;
      continue;
    }
    const n = wordChar(text, i);
    if (!n) break;
    i += n;
  }
  return i;
}
