/**
 * The keyword index's snapshot file, `keyword-index.bin` in the data directory: one checksummed
 * frame (internal/fulltext/frame.ts) whose header says which database it came from, the change
 * sequence it covers (high-water mark and gaps) and when it was saved, and whose sections are each
 * partition's serialised index (which carries its own checksum) followed by its entries' metadata
 * as columns (flags, capture and change positions, text hash, conversation), in the index's entry
 * order: a load reads them straight into the index, with no object per entry parsed from JSON on
 * the way (14 MB less at the load's peak at 100,000 entries). The file's checksum is CRC-32 (native)
 * and covers the partitions' bytes, whose own checksums are then not computed again. Files of the
 * earlier formats still load: the first (metadata in each index's JSON header) and the second (the
 * file checksummed in JavaScript).
 *
 * Written to a temporary file named for the process and renamed, so a crash mid-write, or two
 * processes sharing a data directory, leave a whole file; a file that does not read back whole is
 * ignored and the index rebuilt.
 *
 * On Bun (the compiled binary) a file of the current format is mapped, not read
 * (internal/fulltext/frame_file.ts): the loaded index's postings and term lists stay views into the
 * mapping, resident only where a search has read them. That is safe because nothing rewrites the
 * file in place: a save renames a new file over it (the mapped inode lives on, unlinked, until the
 * index that views it is dropped), and nothing else in memsvc writes, truncates or deletes it.
 */
import { decodeFrame, encodeFrame, readFrameFile } from "../../../internal/fulltext/mod.ts";
import { writeMappedFile } from "../../../internal/platform/mod.ts";

export const KEYWORD_SNAPSHOT_FILE = "keyword-index.bin";
/** Metadata in each index's JSON header. */
const MAGIC_1 = "memsvc-keywords-1\n";
/** Metadata as columns. */
const MAGIC_2 = "memsvc-keywords-2\n";
/** Columns, the file checksummed with CRC-32 (frame.ts): the second format with a faster check at start. */
const MAGIC = "memsvc-keywords-3\n";

/** A partition's entries' metadata, one element per entry in the index's `entries()` order. */
export interface KeywordColumns {
  cold: Uint8Array;
  capture: Float64Array;
  change: Float64Array;
  hash: Float64Array;
  /** Index into `sessions`, or -1 for an entry without a conversation. */
  session: Int32Array;
  /** Conversation names (without the partition prefix). */
  sessions: string[];
}

export interface KeywordSnapshot {
  /** engine_state's instance id of the database the index came from. */
  instance: string;
  /** The highest change sequence value read, and the values below it not yet seen. */
  seen: number;
  gaps: number[];
  /** Date.now() at save. */
  savedAt: number;
  /** `columns` is absent in a file of the first format (metadata in the index's header). */
  partitions: { key: string; bytes: Uint8Array; columns?: KeywordColumns }[];
  /** The sections are views into the file mapped, not read (set by a read only). */
  mapped?: boolean;
}

/** What a save writes: every partition with its columns. */
export type KeywordSnapshotToWrite = Omit<KeywordSnapshot, "partitions" | "mapped"> & {
  partitions: { key: string; bytes: Uint8Array; columns: KeywordColumns }[];
};

export async function writeKeywordSnapshot(file: string, snapshot: KeywordSnapshotToWrite): Promise<void> {
  const { partitions, ...rest } = snapshot;
  const bytes = encodeFrame(
    MAGIC,
    { ...rest, partitions: partitions.map((p) => ({ key: p.key, sessions: p.columns.sessions })) },
    partitions.flatMap((
      { bytes, columns: c },
    ) => [bytes, c.cold, c.capture, c.change, c.hash, c.session]),
    "crc32",
  );
  // Never written in place: a running process may have the current file mapped (see above).
  await writeMappedFile(file, bytes);
}

/** The snapshot, or undefined when there is none or it is damaged. */
export async function readKeywordSnapshot(
  file: string,
  options: { map?: boolean } = {},
): Promise<KeywordSnapshot | undefined> {
  let bytes: Uint8Array, checked: boolean, mapped: boolean;
  try {
    ({ bytes, checked, mapped } = await readFrameFile(file, MAGIC, options));
  } catch {
    return undefined;
  }
  try {
    const magic = [MAGIC_1, MAGIC_2, MAGIC].find((m) =>
      new TextDecoder().decode(bytes.subarray(0, m.length)) === m
    );
    if (!magic) return undefined;
    const frame = decodeFrame(magic, bytes, { checksum: magic === MAGIC ? "crc32" : "words", checked });
    const header = frame.header as Omit<KeywordSnapshot, "partitions"> & {
      partitions: (string | { key: string; sessions: string[] })[];
    };
    if (typeof header.instance !== "string" || !Number.isSafeInteger(header.seen)) return undefined;
    const partitions = header.partitions.map((p) => {
      if (typeof p === "string") return { key: p, bytes: frame.next(Uint8Array) };
      const bytes = frame.next(Uint8Array);
      const columns: KeywordColumns = {
        cold: frame.next(Uint8Array),
        capture: frame.next(Float64Array),
        change: frame.next(Float64Array),
        hash: frame.next(Float64Array),
        session: frame.next(Int32Array),
        sessions: p.sessions,
      };
      const n = columns.cold.length;
      if ([columns.capture, columns.change, columns.hash, columns.session].some((c) => c.length !== n)) {
        throw new Error("keyword snapshot columns do not agree");
      }
      return { key: p.key, bytes, columns };
    });
    return { ...header, partitions, mapped };
  } catch {
    return undefined;
  }
}
