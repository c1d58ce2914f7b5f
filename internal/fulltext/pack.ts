/**
 * Packing an index in place (FullTextIndex.pack): the arrays of the documents added since the index
 * was made, loaded or last packed go into one pool in the snapshot's format (varint term lists and
 * phrase sequences, snapshot.ts writes them), and every posting list becomes views into three shared
 * arrays, as a loaded snapshot holds them. The dictionary, ids and metadata stay as they are: a
 * serialize and deserialize re-created them all while the built index was alive (5,000 notes: RSS
 * 110 MB above the built index while it packed).
 *
 * Documents keep their numbers: a removed one keeps an empty slot (no terms, lengths 0) and its
 * postings are dropped; renumbering would re-create the ids, metadata and id table.
 */
import type { IndexData } from "./index_data.ts";
import { listOf, writeSections } from "./snapshot.ts";

export function packIndex<M>(d: IndexData<M>) {
  const count = d.ids.length;
  const docs = new Int32Array(count);
  for (let n = 0; n < count; n++) docs[n] = d.ids[n] === undefined ? -1 : n;
  const s = writeSections(d, docs);
  d.pool = {
    count,
    packed: true,
    termStart: s.termStart,
    // The writers' buffers grew by doubling: up to half of each would stay unused.
    terms: s.terms.slice(),
    seqStart: s.seqStart,
    sequences: s.sequences.slice(),
    lengths: s.lengths,
  };
  d.ownBase = count;
  d.own.length = 0;
  for (const p of d.postings) p.view(...listOf(s, p.id, d.fields.length));
}
