/** The ranked search's query syntax (FullTextIndex.search): words, "phrases", -exclusions. */
import { QUESTION_WORDS, stem, STOP_WORDS, words } from "./analyzer.ts";

export interface ParsedQuery {
  /** Stems to rank by, with their count in the query. */
  terms: Map<string, number>;
  phrases: string[][];
  excluded: string[];
}

/**
 * Web-search-style syntax: words, "quoted phrases", -excluded words; `or` is a word like the
 * others (every word ranks anyway). Stop words and question words are dropped from the ranked
 * terms unless nothing would be left.
 */
export function parseQuery(query: string): ParsedQuery {
  const phrases: string[][] = [];
  const excluded: string[] = [];
  const ranked: string[] = [];
  const re = /(-?)"([^"]*)"|(-?)(\S+)/g;
  for (const m of query.matchAll(re)) {
    if (m[2] !== undefined) {
      const ws = words(m[2]);
      if (m[1]) excluded.push(...ws.map(stem));
      else if (ws.length) {
        phrases.push(ws.map(stem));
        ranked.push(...ws);
      }
    } else if (m[3] && m[4]) {
      excluded.push(...words(m[4]).map(stem));
    } else if (m[4]) {
      ranked.push(...words(m[4]));
    }
  }
  const content = ranked.filter((w) => !STOP_WORDS.has(w) && !QUESTION_WORDS.has(w));
  const kept = content.length ? content : ranked;
  const terms = new Map<string, number>();
  for (const w of kept) {
    const s = stem(w);
    terms.set(s, (terms.get(s) ?? 0) + 1);
  }
  return { terms, phrases, excluded };
}
