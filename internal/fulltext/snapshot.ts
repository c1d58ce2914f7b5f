/**
 * Snapshots of a full-text index (FullTextIndex.serialize / deserialize): the whole index as one
 * checksummed frame of typed arrays (frame.ts), so a service can persist it instead of rebuilding it.
 * A loaded index keeps views into the bytes (posting lists, per-document term lists and phrase
 * sequences) rather than copies.
 */
import { stem } from "./analyzer.ts";
import { decodeFrame, encodeFrame, type ReadOptions } from "./frame.ts";
import { B, type FieldSpec, type IndexData, K1 } from "./index_data.ts";
import { Postings } from "./postings.ts";
import { VarintWriter } from "./varint.ts";

/** Term lists and phrase sequences as varints; the second format's (as Int32) still load. */
const SNAPSHOT_MAGIC = "fulltext-index-3\n";
const SNAPSHOT_MAGIC_2 = "fulltext-index-2\n";

/**
 * The index as bytes (see frame.ts): dictionary, ids and metadata in a JSON header, postings and
 * per-document term lists as typed arrays. Removed documents are left out and the rest renumbered
 * in order, so a loaded index starts compacted. `encodeMeta` turns metadata into JSON values;
 * without it no metadata is written (a caller that stores it itself, in `entries()` order).
 */
export function serializeIndex<M>(d: IndexData<M>, encodeMeta?: (meta: M) => unknown): Uint8Array {
  // The live documents' numbers, in order.
  const live: number[] = [];
  d.ids.forEach((id, n) => {
    if (id !== undefined) live.push(n);
  });
  const s = writeSections(d, live);
  const header = {
    fields: d.fields,
    exactWords: d.exactWords,
    bm25: [d.k1, d.b],
    terms: [...d.termIds.keys()],
    ids: live.map((n) => d.ids[n]!),
    ...(encodeMeta ? { metas: live.map((n) => encodeMeta(d.metas[n]!)) } : {}),
    lengthSums: d.lengthSums,
    normAverages: d.normAverages,
  };
  return encodeFrame(SNAPSHOT_MAGIC, header, [
    s.postStart,
    s.postDocs,
    s.postImpacts,
    s.postTfs,
    s.termStart,
    s.terms,
    s.seqStart,
    s.sequences,
    s.lengths,
  ]);
}

/** A snapshot's arrays of postings and per-document lists (its frame's sections, in order). */
export interface Sections {
  /** Where each term's postings start in the three arrays after it (in postings, `tfs` in fields). */
  postStart: Uint32Array;
  postDocs: Int32Array;
  postImpacts: Float32Array;
  postTfs: Uint8Array;
  /** As `Pool`'s third format: term lists sorted, as differences, and phrase sequences, as varints. */
  termStart: Uint32Array;
  terms: Uint8Array;
  seqStart: Uint32Array;
  sequences: Uint8Array;
  lengths: Uint16Array;
}

/** Views of term `t`'s postings in the sections. */
export function listOf(
  s: Pick<Sections, "postStart" | "postDocs" | "postImpacts" | "postTfs">,
  t: number,
  width: number,
): [Int32Array, Float32Array, Uint8Array] {
  const from = s.postStart[t]!, to = s.postStart[t + 1]!;
  return [
    s.postDocs.subarray(from, to),
    s.postImpacts.subarray(from, to),
    s.postTfs.subarray(from * width, to * width),
  ];
}

/**
 * The index's postings and per-document arrays, for the documents `docs` names: the old number of each
 * new number, or -1 for a slot left empty (a removed document that keeps its number, as pack() does).
 * Postings of documents `docs` leaves out are dropped; the rest point at the new numbers. The varint
 * sections are views into buffers that grew by doubling.
 */
export function writeSections<M>(d: IndexData<M>, docs: ArrayLike<number>): Sections {
  const width = d.fields.length;
  const renumber = new Int32Array(d.ids.length).fill(-1);
  for (let n = 0; n < docs.length; n++) if (docs[n]! >= 0) renumber[docs[n]!] = n;
  let total = 0;
  for (const p of d.postings) total += p.df;
  const postStart = new Uint32Array(d.postings.length + 1);
  const postDocs = new Int32Array(total);
  const postImpacts = new Float32Array(total);
  const postTfs = new Uint8Array(total * width);
  let at = 0;
  for (const p of d.postings) {
    postStart[p.id] = at;
    for (let i = 0; i < p.length; i++) {
      const n = renumber[p.docs[i]!]!;
      if (n < 0) continue;
      postDocs[at] = n;
      postImpacts[at] = p.impacts[i]!;
      // Copied value by value: a view per posting was a million objects, most of packing's garbage.
      for (let f = 0; f < width; f++) postTfs[at * width + f] = p.tfs[i * width + f]!;
      at++;
    }
  }
  postStart[d.postings.length] = at;
  // Term lists sorted and written as differences, phrase sequences as they are: varints both.
  const termStart = new Uint32Array(docs.length + 1);
  const seqStart = new Uint32Array(docs.length * width + 1);
  const lengths = new Uint16Array(docs.length * width);
  const terms = new VarintWriter(), sequences = new VarintWriter();
  for (let n = 0; n < docs.length; n++) {
    const old = docs[n]!;
    if (old < 0) {
      // An empty slot: no terms, no sequences, lengths 0.
      termStart[n + 1] = terms.length;
      seqStart.fill(sequences.length, n * width + 1, (n + 1) * width + 1);
      continue;
    }
    // Index loops, not for-of: an iterator result per value was most of packing's garbage (Bun).
    const sorted = Int32Array.from(d.termsOf(old)).sort();
    for (let i = 0, previous = 0; i < sorted.length; previous = sorted[i++]!) {
      terms.write(sorted[i]! - previous);
    }
    termStart[n + 1] = terms.length;
    const seqs = d.sequencesOf(old);
    const [l, at] = d.lengthsOf(old);
    for (let f = 0; f < width; f++) {
      const seq = seqs[f];
      for (let i = 0; seq && i < seq.length; i++) sequences.write(seq[i]!);
      seqStart[n * width + f + 1] = sequences.length;
      lengths[n * width + f] = l[at + f]!;
    }
  }
  return {
    postStart,
    postDocs,
    postImpacts,
    postTfs,
    termStart,
    terms: terms.bytes(),
    seqStart,
    sequences: sequences.bytes(),
    lengths,
  };
}

/**
 * Fills a new, empty index with what `serializeIndex` wrote. Throws when they are damaged (checksum), truncated,
 * or were written with other fields or weights: the caller then builds the index anew. Postings and
 * term lists stay views into `bytes`. `decodeMeta` gets each document's stored metadata (undefined
 * when none was written) and its position in `entries()` order. `read.checked`: the caller checked
 * the bytes already (an enclosing frame's checksum).
 */
export function loadSnapshot<M>(
  index: IndexData<M>,
  bytes: Uint8Array,
  decodeMeta: (value: unknown, n: number) => M,
  read: ReadOptions = {},
): void {
  const packed = !startsWith(bytes, SNAPSHOT_MAGIC_2);
  const frame = decodeFrame(packed ? SNAPSHOT_MAGIC : SNAPSHOT_MAGIC_2, bytes, read);
  const header = frame.header as {
    fields: [string, Required<FieldSpec>][];
    exactWords: boolean;
    /** k1 and b; snapshots before these were options were written with the defaults. */
    bm25?: [number, number];
    terms: string[];
    ids: string[];
    metas?: unknown[];
    lengthSums: number[];
    normAverages: number[];
  };
  if (JSON.stringify(header.fields) !== JSON.stringify(index.fields)) {
    throw new Error("snapshot was written with other fields");
  }
  const [k1, b] = header.bm25 ?? [K1, B];
  if (header.exactWords !== index.exactWords || k1 !== index.k1 || b !== index.b) {
    throw new Error("snapshot was written with other options");
  }
  const width = index.fields.length;
  const postStart = frame.next(Uint32Array);
  const postDocs = frame.next(Int32Array);
  const postImpacts = frame.next(Float32Array);
  const postTfs = frame.next(Uint8Array);
  const termStart = frame.next(Uint32Array);
  const terms = frame.next(packed ? Uint8Array : Int32Array);
  const seqStart = frame.next(Uint32Array);
  const sequences = frame.next(packed ? Uint8Array : Int32Array);
  const lengths = frame.next(Uint16Array);
  const docCount = header.ids.length;
  if (
    postStart.length !== header.terms.length + 1 || termStart.length !== docCount + 1 ||
    seqStart.length !== docCount * width + 1 || lengths.length !== docCount * width ||
    (header.metas !== undefined && header.metas.length !== docCount) ||
    postStart[header.terms.length] !== postDocs.length ||
    termStart[docCount] !== terms.length || seqStart[docCount * width] !== sequences.length
  ) {
    throw new Error("snapshot sections do not agree");
  }
  header.terms.forEach((term, t) => {
    index.termIds.set(term, t);
    if (index.exactWords && term.startsWith("=")) index.vocabulary.push(term.slice(1));
    index.postings.push(
      Postings.of(t, width, ...listOf({ postStart, postDocs, postImpacts, postTfs }, t, width)),
    );
  });
  // No arrays per document: creating 300k views was most of a 100k-document load.
  index.pool = { count: docCount, packed, termStart, terms, seqStart, sequences, lengths };
  index.ownBase = docCount;
  // The parsed ids array is the index's own: no copy, no object per document. They are hashed
  // when one is first looked up (a search does not).
  index.ids = header.ids;
  index.numberOf.adopt(0, docCount);
  for (let n = 0; n < docCount; n++) index.metas.push(decodeMeta(header.metas?.[n], n));
  // Exact words: the sorted vocabulary for prefixes, and each word's stem and exact term ids.
  index.vocabulary.sort();
  for (const w of index.vocabulary) {
    const stemId = index.termIds.get(stem(w)), exactId = index.termIds.get(`=${w}`)!;
    if (stemId === undefined) continue;
    index.stemOfExact.set(exactId, stemId);
    index.wordIds.set(w, [stemId, exactId]);
  }
  header.lengthSums.forEach((s, f) => (index.lengthSums[f] = s));
  index.normAverages = header.normAverages;
}

/** Whether the bytes begin with the text's UTF-8 (an ASCII magic). */
function startsWith(bytes: Uint8Array, text: string): boolean {
  for (let i = 0; i < text.length; i++) if (bytes[i] !== text.charCodeAt(i)) return false;
  return true;
}
