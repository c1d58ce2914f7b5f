/**
 * English text analysis for the full-text index: lower-cased letter/digit runs (apostrophes
 * dropped, so "don't" is "dont"), Snowball English stems. Stop words are kept in documents and
 * removed only from queries, so a phrase query with a stop word still matches exactly.
 */
import snowball from "snowball-stemmers";

interface Stemmer {
  stem(word: string): string;
}
const english = (snowball as { newStemmer(lang: string): Stemmer }).newStemmer("english");

/** Stems repeat across a corpus, and the Snowball port costs microseconds a word: remember them. */
const stems = new Map<string, string>();
const MAX_CACHED = 200_000;

export function stem(word: string): string {
  let s = stems.get(word);
  if (s === undefined) {
    s = english.stem(word);
    if (stems.size >= MAX_CACHED) stems.clear();
    stems.set(word, s);
  }
  return s;
}

/** Lower-cased words of a text, in order. */
export function words(text: string): string[] {
  return text.toLowerCase().replace(/['’]/g, "").match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** Stems of a text's words, in order (what a document field is indexed as). */
export function analyze(text: string): string[] {
  return words(text).map(stem);
}

/**
 * Query-time stop words: function words, and the words of asking and recalling that a question to a
 * memory carries without meaning what to find ("what did I say about …", "remind me when …").
 */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    "a about above after again against all also am an and any are as at be because been before being below " +
    "between both but by can cannot could did do does doing done down during each either else ever few for " +
    "from further get gets got had has have having he her here hers herself him himself his how i if in " +
    "into is it its itself just let lets me might more most much must my myself no nor not now of off on " +
    "once only or other our ours ourselves out over own same shall she should so some such than that the " +
    "their theirs them themselves then there these they this those though through to too under until up " +
    "upon us very was we were what whatever when where whether which while who whom whose why will with " +
    "within would yet you your yours yourself yourselves " +
    "arent cant couldnt didnt doesnt dont hadnt hasnt havent im isnt ive shouldnt thats theres theyre wasnt " +
    "weve werent whats wont wouldnt youd youll youre youve"
  ).split(" "),
);

/** Words of asking and recalling: dropped from queries with other words left, like stop words. */
export const QUESTION_WORDS: ReadonlySet<string> = new Set(
  "tell told say said saying mention mentioned remind recall remember remembered ask asked know".split(" "),
);
