/**
 * Every limit of the memory API in one place (contract section 8 plus the ones it leaves to us).
 * A request over any of them answers 400 with an issue naming the limit.
 */
export const LIMITS = {
  /** Trimmed content shorter than this is rejected by the worthiness gate unless `force`. */
  minContentChars: 12,
  /** Longest content accepted, even with `force`: one fact per entry, not a document. */
  maxContentChars: 8_000,
  /** Serialized metadata, in bytes of UTF-8 JSON. */
  maxMetadataBytes: 8 * 1024,
  maxMetadataKeyChars: 64,
  /** includeProjects and includeNamespaces, each. */
  maxIncludes: 16,
  maxSourceTypeChars: 64,
  maxCapturedFromChars: 512,
  maxNamespaceChars: 64,
  maxQueryChars: 2_000,
  maxSessionIdChars: 200,
  /** Turns before and after each result that `context` may ask for. */
  maxSearchContext: 10,
  neighborDepths: [1, 2, 3] as const,
  /** Edges followed per node and nodes returned in all by a neighbors walk. */
  neighborFanout: 20,
  maxNeighborNodes: 200,
  defaultSearchLimit: 10,
  maxSearchLimit: 100,
  defaultRecentLimit: 20,
  maxRecentLimit: 200,
  /** co_occurs edges written from a new entry to its nearest entries in the same scope. */
  coOccurNeighbors: 3,
} as const;
