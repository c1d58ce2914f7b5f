/**
 * In-process full-text search: BM25F over weighted fields with MaxScore top-k, Snowball English
 * stems, phrase and exclusion syntax. The index holds no text a database does not also hold: a
 * service rebuilds it from its rows and keeps it current on writes (see server/memsvc/memory/
 * keyword_index.ts).
 */
export {
  type FieldSpec,
  FullTextIndex,
  type Hit,
  type IndexOptions,
  type MatchClause,
  type MatchGroup,
  type MatchOptions,
  type MatchPage,
  type MatchQuery,
  type MatchTerm,
  type ParsedQuery,
  parseQuery,
} from "./index.ts";
export {
  type Checksum,
  decodeFrame,
  encodeFrame,
  type Frame,
  type ReadOptions,
  type Section,
} from "./frame.ts";
export { CompactIds } from "./compact_ids.ts";
export { type FrameFile, readFrameFile } from "./frame_file.ts";
export { type IdKeys, IdTable } from "./id_table.ts";
export { analyze, QUESTION_WORDS, stem, STOP_WORDS, words } from "./analyzer.ts";
