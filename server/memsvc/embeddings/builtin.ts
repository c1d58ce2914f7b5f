/**
 * The default embedder: deterministic feature hashing, offline, no model download.
 *
 * Each text becomes a bag of features: stemmed content words, adjacent word pairs, and
 * character 3- to 5-grams of each word (which let "postgres" meet "postgresql" and survive
 * typos). Features are hashed with a sign bit into D buckets (the "hashing trick"), weighted by
 * kind and by sublinear term frequency, and the vector is L2-normalised. The same text always
 * gives the same bytes: integer hashing, a fixed accumulation order and IEEE arithmetic (pinned
 * by digests in the tests, which Deno and Bun both reproduce).
 *
 * Changing anything that moves vectors (tokens, stems, hashes, weights) must change `BUILTIN_ID`,
 * because stored vectors of the old space would otherwise be compared with the new.
 */
import { type Embedder, normalize } from "./embedder.ts";

export const BUILTIN_DIMENSIONS = 512;
export const BUILTIN_ID = `builtin-hash-v1:${BUILTIN_DIMENSIONS}`;

/** Feature weights. Words carry the meaning; n-grams only bridge spelling and word-form gaps. */
const WORD_WEIGHT = 1;
const BIGRAM_WEIGHT = 0.3;
const CHAR_WEIGHT = 0.3;

/** A compact English stop-word list (pronouns, auxiliaries, articles, prepositions, question words). */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    "a about above after again against all also am an and any are as at be because been before being below " +
    "between both but by can cannot could did do does doing done down during each either else etc ever few " +
    "for from further get gets got had has have having he her here hers herself him himself his how i if in " +
    "into is it its itself just let lets like may me might more most much must my myself no nor not now of " +
    "off on once one only or other our ours ourselves out over own per same shall she should so some such " +
    "than that the their theirs them themselves then there these they this those though through to too " +
    "under until up upon us very via was we were what whatever when where whether which while who whom " +
    "whose why will with within without would yet you your yours yourself yourselves " +
    // Contractions, after apostrophes are removed ("I'd" is left out: "id" is a word here).
    "arent cant couldnt didnt doesnt dont hadnt hasnt havent im isnt ive shouldnt thats theres " +
    "theyre wasnt weve werent whats wont wouldnt youd youll youre youve"
  ).split(" "),
);

/**
 * Common engineering abbreviations, spelled out so "db" meets "database" and "k8s" meets
 * "kubernetes". Only unambiguous, widespread ones: a wrong expansion costs more than a missing one.
 */
export const ABBREVIATIONS: ReadonlyMap<string, readonly string[]> = new Map(
  Object.entries({
    auth: "authentication",
    config: "configuration",
    configs: "configurations",
    db: "database",
    dbs: "databases",
    deps: "dependencies",
    dev: "development",
    doc: "documentation",
    docs: "documentation",
    env: "environment",
    envs: "environments",
    infra: "infrastructure",
    k8s: "kubernetes",
    pg: "postgres",
    postgresql: "postgres",
    pr: "pull request",
    prs: "pull requests",
    prod: "production",
    repo: "repository",
    repos: "repositories",
  }).map(([short, long]) => [short, long.split(" ")]),
);

const WORD = /[\p{L}\p{N}]+/gu;
const APOSTROPHES = /['\u2019]/g;
/** Printable ASCII and line breaks need no Unicode folding: the fast path for most text. */
const NON_ASCII = /[^ -~\t\n\r]/;
const LATIN_ACCENTS = /([A-Za-z])[\u0300-\u036f]+/g;

/**
 * Lower-cased words: runs of letters and digits. Apostrophes are dropped so "user's" is one word;
 * compatibility forms are unified and accents on Latin letters removed, so "café" meets "cafe"
 * (marks elsewhere, like the breve of Cyrillic "й", change the letter and are kept).
 */
function words(text: string): string[] {
  const folded = NON_ASCII.test(text)
    ? text.normalize("NFKD").replace(LATIN_ACCENTS, "$1").normalize("NFC")
    : text;
  return folded.toLowerCase().replace(APOSTROPHES, "").match(WORD) ?? [];
}

/**
 * Stemmed content words: lower-cased, stop words and one-character words removed, then stemmed.
 * The search code also uses these for token-Jaccard near-duplicate detection.
 */
export function tokens(text: string): string[] {
  const out: string[] = [];
  for (const word of words(text)) {
    if (word.length < 2 || STOP_WORDS.has(word)) continue;
    for (const w of ABBREVIATIONS.get(word) ?? [word]) out.push(stem(w));
  }
  return out;
}

/**
 * A small English suffix stripper, in the spirit of Porter's step 1 plus a few derivational
 * endings. It aims at consistency, not dictionary forms: "cache", "caches" and "caching" all
 * become "cach"; "deploys", "deployed", "deploying" and "deployment" all become "deploy".
 */
export function stem(word: string): string {
  if (word.length < 3 || hasDigit(word)) return word;
  let w = word;
  // Plurals and third person.
  if (w.endsWith("ies") && w.length > 4) w = w.slice(0, -3) + "y";
  else if (w.endsWith("sses")) w = w.slice(0, -2);
  else if (/(?:x|z|ch|sh)es$/.test(w) && w.length > 4) w = w.slice(0, -2);
  else if (w.endsWith("s") && w.length > 3 && !/(?:ss|us|is)$/.test(w)) w = w.slice(0, -1);
  // Inflections and a few derivational endings; each keeps a stem of reasonable length.
  if (w.endsWith("ied") && w.length > 4) w = w.slice(0, -3) + "y";
  else if (w.endsWith("ing") && w.length >= 5 && hasVowel(w, w.length - 3)) w = undouble(w.slice(0, -3));
  else if (w.endsWith("ed") && !w.endsWith("eed") && w.length >= 4 && hasVowel(w, w.length - 2)) {
    w = undouble(w.slice(0, -2));
  } else if (w.endsWith("ly") && w.length >= 6) w = w.slice(0, -2);
  else if (w.endsWith("ment") && w.length >= 8) w = w.slice(0, -4);
  else if (/[st]ion$/.test(w) && w.length >= 7) w = w.slice(0, -3);
  // A final silent e: "configure" and "configured" meet at "configur".
  if (w.endsWith("e") && w.length >= 3) w = w.slice(0, -1);
  return w;
}

function hasDigit(w: string): boolean {
  for (let i = 0; i < w.length; i++) {
    const c = w.charCodeAt(i);
    if (c >= 48 && c <= 57) return true;
  }
  return false;
}

function hasVowel(w: string, end: number): boolean {
  for (let i = 0; i < end; i++) if ("aeiouy".includes(w[i]!)) return true;
  return false;
}

/** "runn" -> "run", "committ" -> "commit"; but "call", "pass", "add" stay. */
function undouble(w: string): string {
  const n = w.length;
  if (n >= 4 && w[n - 1] === w[n - 2] && !"aeioulsz".includes(w[n - 1]!)) return w.slice(0, -1);
  return w;
}

// ---- hashing ----

const FNV_PRIME = 0x01000193;
// Distinct seeds keep the word "go", the pair "go|go" and the trigram "<go" in separate spaces.
const SEED_WORD = 0x811c9dc5;
const SEED_BIGRAM = 0x9e3779b9;
const SEED_CHAR = 0x85ebca6b;

/** FNV-1a over s[start, end), continuing from `h`. */
function fnv1a(s: string, start: number, end: number, h: number): number {
  for (let i = start; i < end; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, FNV_PRIME);
  }
  return h;
}

/** murmur3's finaliser: FNV's low bits are weak, and the bucket and sign come from these bits. */
function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

// Reused between calls (embedding is synchronous), to avoid allocating three maps per text.
const wordCounts = new Map<number, number>();
const bigramCounts = new Map<number, number>();
const charCounts = new Map<number, number>();

function count(map: Map<number, number>, h: number): void {
  map.set(h, (map.get(h) ?? 0) + 1);
}

/** Adds each feature's weight × (1 + ln tf) to its signed bucket. */
function accumulate(v: Float64Array, map: Map<number, number>, weight: number): void {
  const mask = v.length - 1;
  for (const [h, tf] of map) {
    const w = tf === 1 ? weight : weight * (1 + Math.log(tf));
    v[h & mask]! += h & 0x80000000 ? -w : w;
  }
  map.clear();
}

/** Embeds one text synchronously; the vector is unit length and never all zeros. */
export function embedText(text: string): Float32Array {
  const v = new Float64Array(BUILTIN_DIMENSIONS);
  let toks = tokens(text);
  // Only stop words (or nothing) left: fall back to the raw words so "what is this" still has a vector.
  if (toks.length === 0) toks = words(text);
  let previous = "";
  for (const tok of toks) {
    count(wordCounts, mix(fnv1a(tok, 0, tok.length, SEED_WORD)));
    if (previous) {
      count(bigramCounts, mix(fnv1a(`${previous} ${tok}`, 0, previous.length + 1 + tok.length, SEED_BIGRAM)));
    }
    previous = tok;
    const marked = `<${tok}>`;
    for (let n = 3; n <= 5; n++) {
      for (let i = 0; i + n <= marked.length; i++) count(charCounts, mix(fnv1a(marked, i, i + n, SEED_CHAR)));
    }
  }
  accumulate(v, wordCounts, WORD_WEIGHT);
  accumulate(v, bigramCounts, BIGRAM_WEIGHT);
  accumulate(v, charCounts, CHAR_WEIGHT);
  if (!normalize(v)) {
    // No words at all (empty, punctuation) or features that cancelled out: one bucket from the raw text.
    const raw = text.trim().toLowerCase();
    const h = mix(fnv1a(raw, 0, raw.length, SEED_WORD));
    v[h & (v.length - 1)] = h & 0x80000000 ? -1 : 1;
  }
  return Float32Array.from(v);
}

/**
 * @example
 * const embedder = new BuiltinEmbedder();
 * const [a, b] = await embedder.embed(["deploy the api", "api deployment"]);
 * cosine(a, b); // high
 */
export class BuiltinEmbedder implements Embedder {
  readonly id = BUILTIN_ID;
  readonly dimensions = BUILTIN_DIMENSIONS;

  embed(texts: string[]): Promise<Float32Array[]> {
    return Promise.resolve(texts.map(embedText));
  }
}
