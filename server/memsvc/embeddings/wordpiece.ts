/**
 * BERT's uncased tokenizer, as all-MiniLM-L6-v2 was trained with it (the `BertNormalizer` +
 * `BertPreTokenizer` + `WordPiece` of its tokenizer.json): clean control characters, put spaces around
 * CJK ideographs, lower-case, strip accents (NFD, drop combining marks), split on whitespace and on
 * every punctuation character, then greedy longest-match-first WordPiece over vocab.txt with "##"
 * continuations; a word longer than 100 characters or with no match becomes [UNK].
 */

const MAX_WORD_CHARS = 100;

export interface Encoded {
  /** [CLS] tokens… [SEP], at most maxTokens long. */
  ids: number[];
}

export class WordPieceTokenizer {
  readonly #vocab: Map<string, number>;
  readonly cls: number;
  readonly sep: number;
  readonly pad: number;
  readonly unk: number;
  /** Word → its pieces: conversational text repeats words, and WordPiece is the costly part. */
  readonly #cache = new Map<string, number[]>();

  /** @param vocab vocab.txt: one token per line, line n = id n. */
  constructor(vocab: string) {
    this.#vocab = new Map();
    const lines = vocab.split("\n");
    if (lines.at(-1) === "") lines.pop();
    lines.forEach((token, id) => this.#vocab.set(token.replace(/\r$/, ""), id));
    const special = (t: string) => {
      const id = this.#vocab.get(t);
      if (id === undefined) throw new Error(`vocab.txt has no ${t}`);
      return id;
    };
    this.cls = special("[CLS]");
    this.sep = special("[SEP]");
    this.pad = special("[PAD]");
    this.unk = special("[UNK]");
  }

  get size(): number {
    return this.#vocab.size;
  }

  /** Token ids with [CLS] and [SEP], truncated (before [SEP]) to maxTokens in all. */
  encode(text: string, maxTokens: number): number[] {
    const ids = [this.cls];
    const room = maxTokens - 1;
    for (const word of basicTokens(text)) {
      for (const id of this.#pieces(word)) {
        if (ids.length >= room) break;
        ids.push(id);
      }
      if (ids.length >= room) break;
    }
    ids.push(this.sep);
    return ids;
  }

  #pieces(word: string): number[] {
    const cached = this.#cache.get(word);
    if (cached) return cached;
    const pieces = this.#wordPiece(word);
    if (this.#cache.size > 50_000) this.#cache.clear();
    this.#cache.set(word, pieces);
    return pieces;
  }

  #wordPiece(word: string): number[] {
    const chars = Array.from(word);
    if (chars.length > MAX_WORD_CHARS) return [this.unk];
    const out: number[] = [];
    let start = 0;
    while (start < chars.length) {
      let end = chars.length;
      let found: number | undefined;
      while (start < end) {
        const piece = (start > 0 ? "##" : "") + chars.slice(start, end).join("");
        found = this.#vocab.get(piece);
        if (found !== undefined) break;
        end--;
      }
      if (found === undefined) return [this.unk];
      out.push(found);
      start = end;
    }
    return out;
  }
}

const COMBINING_MARK = /\p{Mn}/u;
const WHITESPACE = /\s/u;
const CONTROL = /[\p{Cc}\p{Cf}]/u;

/** BERT counts all non-alphanumeric ASCII as punctuation, as well as Unicode's P* categories. */
function isPunctuation(cp: number, ch: string): boolean {
  if (
    (cp >= 33 && cp <= 47) || (cp >= 58 && cp <= 64) || (cp >= 91 && cp <= 96) || (cp >= 123 && cp <= 126)
  ) {
    return true;
  }
  return /\p{P}/u.test(ch);
}

function isCjk(cp: number): boolean {
  return (cp >= 0x4e00 && cp <= 0x9fff) || (cp >= 0x3400 && cp <= 0x4dbf) ||
    (cp >= 0x20000 && cp <= 0x2a6df) ||
    (cp >= 0x2a700 && cp <= 0x2b73f) || (cp >= 0x2b740 && cp <= 0x2b81f) ||
    (cp >= 0x2b820 && cp <= 0x2ceaf) ||
    (cp >= 0xf900 && cp <= 0xfaff) || (cp >= 0x2f800 && cp <= 0x2fa1f);
}

/** The words and punctuation marks BERT's normaliser and pre-tokeniser make of a text. */
export function basicTokens(text: string): string[] {
  const words: string[] = [];
  let word = "";
  const flush = () => {
    if (word) words.push(word);
    word = "";
  };
  // Lower-case first, then NFD and drop the marks: the order of BertNormalizer with strip_accents.
  for (const ch of text.toLowerCase().normalize("NFD")) {
    const cp = ch.codePointAt(0)!;
    if (cp < 0x80) {
      // ASCII, what most text is, without the Unicode property tests below (the same answers: \s is
      // tab to carriage return and space, Cc the rest below 32 and DEL, no mark, every other character
      // but letters and digits punctuation: isPunctuation's ranges).
      if (cp === 32 || (cp >= 9 && cp <= 13)) flush();
      else if (cp < 32 || cp === 127) continue;
      else if (cp < 48 || (cp >= 58 && cp <= 64) || (cp >= 91 && cp <= 96) || cp >= 123) {
        flush(), words.push(ch);
      } else word += ch;
      continue;
    }
    if (cp === 0xfffd) continue;
    if (WHITESPACE.test(ch)) {
      flush();
      continue;
    }
    if (CONTROL.test(ch) || COMBINING_MARK.test(ch)) continue;
    if (isPunctuation(cp, ch) || isCjk(cp)) {
      flush();
      words.push(ch);
      continue;
    }
    word += ch;
  }
  flush();
  return words;
}
