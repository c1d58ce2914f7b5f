/**
 * Query expansion for the keyword tier: each ranked query stem brings in the stems of its nearest words
 * by MiniLM's token vectors ("dog" → canine, animal, pup, pet, puppy), each weighted EXPANSION_WEIGHT × its
 * cosine, so a turn that answers in other words than the question's can still match. The table is derived
 * at build time (scripts/lib/minilm_static.ts: five neighbours for each of 13,995 stems of 21,571 words) and embedded;
 * without it (a source checkout that has not fetched the model) queries are left as they are.
 *
 * Measured on the conversational set (scripts/bench/recall_offline.ts), chosen on seed 7 (8 chats, 223
 * questions), hybrid R@5 / R@10 with the hashing embedder: none 0.659 / 0.713, weight 0.2 0.668 / 0.735,
 * 0.3 0.668 / 0.744, 0.5 0.668 / 0.740, 0.7 0.668 / 0.740. On the default set, held out: 0.643 / 0.711 →
 * 0.650 / 0.725 (builtin-static: 0.711 / 0.814 → 0.714 / 0.814). It moves paraphrase questions, whose
 * answer shares no word with the question. Cost: a question's 3.2 stems become 17.4 terms, and the
 * keyword tier's CPU per query at 10,000 turns goes from 0.09 to 0.23 ms (MaxScore skips most of the
 * neighbours' postings: they weigh little).
 *
 * The table is held as a few typed arrays over one string of stems (encodeNeighbours): as JSON it took
 * 87 ms and 17–19 MB of RSS to read at every start (a start's RSS target is 250 MB), this a few ms and ~1 MB.
 */
import type { ParsedQuery } from "../../../internal/fulltext/mod.ts";
import { MINILM_FILES, miniLMFile } from "../embeddings/minilm_assets.ts";

/**
 * A neighbour's weight in the query, per unit of cosine, when the caller names none. Hybrid search
 * passes its embedder's own (fusion.ts: 1.2 for the hashing embedder, 0.85 for builtin-static, measured
 * on three other seeds of the set with 20 chats each).
 */
export const EXPANSION_WEIGHT = 0.3;

/** Stem → its neighbours' stems and cosines, best first. */
export interface Neighbours {
  readonly size: number;
  get(stem: string): readonly (readonly [string, number])[] | undefined;
  /** Every stem with neighbours. */
  keys(): IterableIterator<string>;
}

const MAGIC = 0x3162_6e77; // "wnb1"
const NONE = 0xffff_ffff;

/**
 * The table as bytes: a header (magic, stems with neighbours, all stems, neighbours per stem, text
 * bytes), the stems as UTF-8 joined by "\n" (those with neighbours first, in order), then per stem with
 * neighbours its neighbours' indexes (uint32, NONE past its last) and their cosines in hundredths (uint8).
 */
export function encodeNeighbours(
  table: ReadonlyMap<string, readonly (readonly [string, number])[]>,
  k: number,
) {
  const keys = [...table.keys()].sort();
  const index = new Map(keys.map((s, i) => [s, i]));
  const stems = [...keys];
  for (const list of table.values()) {
    for (const [s] of list) if (!index.has(s)) index.set(s, stems.push(s) - 1);
  }
  const text = new TextEncoder().encode(stems.join("\n"));
  const textAt = 20, idsAt = align4(textAt + text.length);
  const cosAt = idsAt + keys.length * k * 4;
  const out = new Uint8Array(cosAt + keys.length * k);
  const head = new DataView(out.buffer);
  [MAGIC, keys.length, stems.length, k, text.length].forEach((v, i) => head.setUint32(i * 4, v, true));
  out.set(text, textAt);
  const ids = new Uint32Array(out.buffer, idsAt, keys.length * k).fill(NONE);
  keys.forEach((s, row) => {
    const list = table.get(s)!;
    if (list.length > k) throw new RangeError(`${s}: ${list.length} neighbours, at most ${k}`);
    list.forEach(([n, cosine], j) => {
      ids[row * k + j] = index.get(n)!;
      out[cosAt + row * k + j] = Math.round(Math.min(Math.max(cosine, 0), 1) * 100);
    });
  });
  return out;
}

class PackedNeighbours implements Neighbours {
  readonly #rowOf = new Map<string, number>();
  readonly #stems: string[];
  readonly #ids: Uint32Array;
  readonly #cosines: Uint8Array;
  readonly #k: number;

  constructor(bytes: Uint8Array) {
    const head = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const [magic, keys, stems, k, textBytes] = [0, 1, 2, 3, 4].map((i) => head.getUint32(i * 4, true));
    if (magic !== MAGIC) throw new Error("not a word-neighbour table");
    const idsAt = align4(20 + textBytes!);
    // A copy at offset 0 of its own buffer, so the ids can be viewed as aligned uint32s.
    const own = bytes.byteOffset % 4 === 0 ? bytes : bytes.slice();
    this.#stems = new TextDecoder().decode(own.subarray(20, 20 + textBytes!)).split("\n");
    if (this.#stems.length !== stems) throw new Error("word-neighbour table: stems do not match the header");
    this.#k = k!;
    this.#ids = new Uint32Array(own.buffer, own.byteOffset + idsAt, keys! * k!);
    this.#cosines = own.subarray(idsAt + keys! * k! * 4, idsAt + keys! * k! * 5);
    for (let row = 0; row < keys!; row++) this.#rowOf.set(this.#stems[row]!, row);
  }

  get size(): number {
    return this.#rowOf.size;
  }

  get(stem: string): [string, number][] | undefined {
    const row = this.#rowOf.get(stem);
    if (row === undefined) return undefined;
    const out: [string, number][] = [];
    for (let j = 0; j < this.#k; j++) {
      const id = this.#ids[row * this.#k + j]!;
      if (id === NONE) break;
      out.push([this.#stems[id]!, this.#cosines[row * this.#k + j]! / 100]);
    }
    return out;
  }

  keys(): IterableIterator<string> {
    return this.#rowOf.keys();
  }
}

/** Reads a table written by encodeNeighbours. */
export function decodeNeighbours(bytes: Uint8Array): Neighbours {
  return new PackedNeighbours(bytes);
}

let loading: Promise<(Neighbours) | null> | undefined;

/** The embedded table, read once per process; null when this build or checkout has none. */
export function loadNeighbours(): Promise<(Neighbours) | null> {
  loading ??= (async () => {
    const bytes = await miniLMFile(MINILM_FILES.wordNeighbours);
    return bytes ? decodeNeighbours(bytes) : null;
  })();
  return loading;
}

/** The query with its stems' neighbours added (stems already in it keep their own weight). */
export function expandQuery(
  query: ParsedQuery,
  neighbours: Neighbours | null,
  weight = EXPANSION_WEIGHT,
): ParsedQuery {
  if (!neighbours || query.terms.size === 0) return query;
  const terms = new Map(query.terms);
  for (const s of query.terms.keys()) {
    for (const [n, cosine] of neighbours.get(s) ?? []) {
      if (!query.terms.has(n)) terms.set(n, Math.max(terms.get(n) ?? 0, weight * cosine));
    }
  }
  return { ...query, terms };
}

function align4(n: number): number {
  return (n + 3) & ~3;
}
