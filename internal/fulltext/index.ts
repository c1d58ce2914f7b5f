/**
 * An in-process inverted index with BM25F ranking and MaxScore top-k, for services that keep their
 * documents in a database and want keyword search whose cost does not grow with the number of
 * matching documents.
 *
 * - Documents have named fields with weights (say content 1, context 0.5, tags 0.3). A term's
 *   pseudo-frequency in a document is the weighted sum over fields of tf / (1 - b + b * len / avglen)
 *   (BM25F); its impact is that saturated by k1, times idf at query time.
 * - Impacts are computed when a document is added, against the average field lengths of that moment;
 *   when the averages drift by more than a quarter, every impact is recomputed from the stored
 *   per-field frequencies (no text needed).
 * - Top-k uses MaxScore: query terms are ordered by their highest possible contribution, documents
 *   are drawn only from the lists that can still lift a document into the top k, and the others are
 *   probed by binary search only while they could. Documents are numbered in insertion order, so
 *   every posting list is sorted; an update is a removal and an add.
 * - Removal leaves a tombstone; a list is compacted once half of it is dead.
 * - `serialize` / `FullTextIndex.deserialize` save and load the whole index as one checksummed
 *   frame of typed arrays (frame.ts), so a service can persist it instead of rebuilding it.
 * - Queries: words are ranked together (OR with BM25), stop words dropped unless nothing else is
 *   left; "a phrase" must appear as such in a phrase field; -word excludes documents holding it in
 *   any field but the expansion fields (see `FieldSpec.excludable`).
 * - match() answers boolean queries instead (every clause, or any; OR groups, phrases in any phrase
 *   field, exact prefixes with `exactWords`, exclusions, non-ranking filter terms, no terms at all for
 *   a listing): ranked by field tier then BM25F, one page at an offset, and the count of matches.
 *
 * One module per concern: this class (documents in and out), index_data.ts (what is held, impacts),
 * postings.ts (a term's list), ranked_search.ts (search), boolean_match.ts (match), snapshot.ts
 * (serialize, deserialize), parse_query.ts (search's syntax).
 *
 * @example
 * const index = new FullTextIndex<{ owner: string }>({ content: { weight: 1, phrases: true } });
 * index.add("a", { content: "Postgres tuning notes" }, { owner: "u1" });
 * index.search("tuning", 10, (meta) => meta.owner === "u1"); // [{ id: "a", score: … }]
 */
import { stem, words } from "./analyzer.ts";
import { booleanMatch, type MatchOptions, type MatchPage, type MatchQuery } from "./boolean_match.ts";
import type { ReadOptions } from "./frame.ts";
import { type FieldSpec, IndexData, type IndexOptions, MAX_TF } from "./index_data.ts";
import { packIndex } from "./pack.ts";
import { grow } from "./postings.ts";
import type { ParsedQuery } from "./parse_query.ts";
import { type Hit, rankedSearch } from "./ranked_search.ts";
import { loadSnapshot, serializeIndex } from "./snapshot.ts";

export type { FieldSpec, IndexOptions } from "./index_data.ts";
export type {
  MatchClause,
  MatchGroup,
  MatchOptions,
  MatchPage,
  MatchQuery,
  MatchTerm,
} from "./boolean_match.ts";
export type { Hit } from "./ranked_search.ts";
export { type ParsedQuery, parseQuery } from "./parse_query.ts";

export class FullTextIndex<M = undefined> {
  readonly #d: IndexData<M>;
  /** Scratch of add(): a term's slot among the document's distinct terms, the terms, their frequencies. */
  readonly #slotOf = new Map<number, number>();
  #scratchTerms = new Int32Array(256);
  #scratchTfs = new Uint8Array(0);

  constructor(fields: Record<string, FieldSpec>, options: IndexOptions = {}) {
    this.#d = new IndexData(fields, options);
  }

  get size(): number {
    return this.#d.size;
  }

  /** Documents numbered since the index was made, loaded or last packed (removed ones too): what pack() moves. */
  get unpacked(): number {
    return this.#d.ids.length - this.#d.ownBase;
  }

  has(id: string): boolean {
    return this.#d.numberOf.has(id);
  }

  meta(id: string): M | undefined {
    const n = this.#d.numberOf.get(id);
    return n === undefined ? undefined : this.#d.metas[n];
  }

  /** Adds a document, or replaces the one with the same id. */
  add(id: string, fields: Record<string, string | readonly string[] | undefined>, meta: M) {
    this.remove(id);
    const d = this.#d;
    const number = d.ids.length;
    const width = d.fields.length;
    // The document's distinct terms and their per-field frequencies go to scratch arrays kept between
    // calls: allocation dominated indexing, and a new array per document was garbage by the next one.
    const slotOf = this.#slotOf;
    let terms = this.#scratchTerms;
    if (this.#scratchTfs.length < terms.length * width) {
      this.#scratchTfs = new Uint8Array(terms.length * width);
    }
    let tfs = this.#scratchTfs;
    let distinct = 0;
    const lengths: number[] = [];
    const sequences: (Int32Array | undefined)[] = [];
    const count = (t: number, f: number) => {
      let slot = slotOf.get(t);
      if (slot === undefined) {
        slot = distinct++;
        slotOf.set(t, slot);
        if (slot === terms.length) {
          terms = this.#scratchTerms = grow(terms, new Int32Array(terms.length * 2));
          tfs = this.#scratchTfs = grow(tfs, new Uint8Array(terms.length * width));
        }
        terms[slot] = t;
        tfs.fill(0, slot * width, (slot + 1) * width);
      }
      if (tfs[slot * width + f]! < MAX_TF) tfs[slot * width + f]!++;
    };
    for (let f = 0; f < width; f++) {
      const spec = d.fields[f]![1];
      const value = fields[d.fields[f]![0]] ?? "";
      const surface = spec.verbatim ? undefined : words(typeof value === "string" ? value : value.join(" "));
      const keys = surface
        ? (d.exactWords ? surface : surface.map(stem))
        : typeof value === "string"
        ? [value]
        : [...value];
      lengths.push(Math.min(keys.length, 0xffff));
      d.lengthSums[f]! += lengths[f]!;
      const sequence = spec.phrases ? new Int32Array(keys.length) : undefined;
      sequences.push(sequence);
      for (let i = 0; i < keys.length; i++) {
        if (surface && d.exactWords) {
          // One lookup per word for both of its terms: map lookups dominate indexing.
          const w = surface[i]!;
          let ids = d.wordIds.get(w);
          if (!ids) {
            ids = [d.termId(stem(w)), d.termId(`=${w}`, w)];
            d.wordIds.set(w, ids);
            d.stemOfExact.set(ids[1], ids[0]);
          }
          if (sequence) sequence[i] = ids[0];
          count(ids[0], f);
          count(ids[1], f);
          continue;
        }
        const t = d.termId(keys[i]!);
        if (sequence) sequence[i] = t;
        count(t, f);
      }
    }
    slotOf.clear();
    const termArray = terms.slice(0, distinct);
    d.ids.push(id);
    d.metas.push(meta);
    d.own.push({ terms: termArray, lengths, sequences });
    d.numberOf.set(id, number);
    const drifted = d.drifted();
    for (let i = 0; i < distinct; i++) {
      // The frequencies read where they are: a copy per posting was most of indexing's garbage.
      d.postings[terms[i]!]!.push(number, tfs, i * width, drifted ? 0 : d.impact(tfs, i * width, lengths, 0));
    }
    if (drifted) d.renormalize();
  }

  /** Every document's id and metadata, in insertion order. */
  *entries(): IterableIterator<[string, M]> {
    const ids = this.#d.ids;
    for (let n = 0; n < ids.length; n++) if (ids[n] !== undefined) yield [ids[n]!, this.#d.metas[n]!];
  }

  /** Every document's id, in insertion order (entries() without a pair per document). */
  ids(): string[] {
    return this.#d.ids.filter((id) => id !== undefined);
  }

  /** Changes a document's metadata (scope, flags) without re-indexing its text. */
  setMeta(id: string, meta: M) {
    const n = this.#d.numberOf.get(id);
    if (n !== undefined) this.#d.metas[n] = meta;
  }

  remove(id: string): boolean {
    const d = this.#d;
    const n = d.numberOf.get(id);
    if (n === undefined) return false;
    d.numberOf.delete(id);
    const terms = d.termsOf(n);
    const [lengths, at] = d.lengthsOf(n);
    for (let f = 0; f < d.fields.length; f++) d.lengthSums[f]! -= lengths[at + f]!;
    d.ids[n] = undefined;
    d.metas[n] = undefined;
    if (n >= d.ownBase) d.own[n - d.ownBase] = undefined;
    for (const t of terms) {
      const p = d.postings[t]!;
      p.df--;
      if (++p.dead * 2 > p.length) d.compact(p);
    }
    return true;
  }

  /**
   * The k best documents for a query, best first, among those `accept` lets through (scope,
   * visibility). Scores are BM25F; documents the query cannot reach are never looked at.
   */
  search(query: string | ParsedQuery, k: number, accept?: (meta: M, id: string) => boolean): Hit[] {
    return rankedSearch(this.#d, query, k, accept);
  }

  /**
   * One page of the documents matching a boolean query, ranked by tier then BM25F, with the number of
   * matches. Every candidate of the most selective clause is visited (the others are probed by binary
   * search), so the total is exact and the cost follows that clause's size, not the index's.
   */
  match(query: MatchQuery, options: MatchOptions<M>): MatchPage {
    return booleanMatch(this.#d, query, options);
  }

  /**
   * Moves the index into the compact form a loaded snapshot has, in place: every posting list into
   * views of a few shared arrays, the documents' term lists and phrase sequences into one varint pool.
   * Call it once a bulk load is done: a built index holds an array per term that grew by doubling and
   * three per document. Removed documents' postings are dropped (they keep their numbers); the
   * dictionary, ids and metadata are not touched. Everything works after it as before; documents
   * added later get arrays of their own again, until the next pack().
   */
  pack() {
    packIndex(this.#d);
  }

  /**
   * The index as bytes (see frame.ts): dictionary, ids and metadata in a JSON header, postings and
   * per-document term lists as typed arrays. Removed documents are left out and the rest renumbered
   * in order, so a loaded index starts compacted. `encodeMeta` turns metadata into JSON values;
   * without it no metadata is written (a caller that stores it itself, in `entries()` order).
   */
  serialize(encodeMeta?: (meta: M) => unknown): Uint8Array {
    return serializeIndex(this.#d, encodeMeta);
  }

  /**
   * An index read back from `serialize`'s bytes. Throws when they are damaged (checksum), truncated,
   * or were written with other fields or weights: the caller then builds the index anew. Postings and
   * term lists stay views into `bytes`. `decodeMeta` gets each document's stored metadata (undefined
   * when none was written) and its position in `entries()` order. `read.checked`: the caller checked
   * the bytes already (an enclosing frame's checksum).
   */
  static deserialize<M>(
    fields: Record<string, FieldSpec>,
    bytes: Uint8Array,
    decodeMeta: (value: unknown, n: number) => M,
    options: IndexOptions = {},
    read: ReadOptions = {},
  ): FullTextIndex<M> {
    const index = new FullTextIndex<M>(fields, options);
    loadSnapshot(index.#d, bytes, decodeMeta, read);
    return index;
  }

  /**
   * Whether some document holds the term (a stem, as ParsedQuery's) in the field: e.g. whether a query's
   * word names one of the speakers. Reads the term's postings up to the first such document; a field
   * no document has costs nothing.
   */
  inField(term: string, field: string): boolean {
    const d = this.#d;
    const f = d.fields.findIndex(([name]) => name === field);
    if (f < 0 || d.lengthSums[f] === 0) return false;
    const t = d.termIds.get(term);
    const p = t === undefined ? undefined : d.postings[t];
    if (!p || p.df === 0) return false;
    for (let i = 0; i < p.length; i++) {
      if (p.tfs[i * p.fieldCount + f]! > 0 && d.ids[p.docs[i]!] !== undefined) return true;
    }
    return false;
  }
}
