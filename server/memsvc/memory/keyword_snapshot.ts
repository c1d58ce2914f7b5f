/**
 * The keyword index's snapshot file, `keyword-index.bin` in the data directory: one checksummed
 * frame (internal/fulltext/frame.ts) whose header says which database it came from, the change
 * sequence it covers (high-water mark and gaps) and when it was saved, and whose sections are each
 * partition's serialised index (which carries its own checksum). Written to a temporary file named
 * for the process and renamed, so a crash mid-write, or two processes sharing a data directory,
 * leave a whole file; a file that does not read back whole is ignored and the index rebuilt.
 */
import { readFile, rename, rm, writeFile } from "node:fs/promises";
import { decodeFrame, encodeFrame } from "../../../internal/fulltext/mod.ts";

export const KEYWORD_SNAPSHOT_FILE = "keyword-index.bin";
const MAGIC = "memsvc-keywords-1\n";

export interface KeywordSnapshot {
  /** engine_state's instance id of the database the index came from. */
  instance: string;
  /** The highest change sequence value read, and the values below it not yet seen. */
  seen: number;
  gaps: number[];
  /** Date.now() at save. */
  savedAt: number;
  partitions: { key: string; bytes: Uint8Array }[];
}

export async function writeKeywordSnapshot(file: string, snapshot: KeywordSnapshot): Promise<void> {
  const { partitions, ...rest } = snapshot;
  const bytes = encodeFrame(
    MAGIC,
    { ...rest, partitions: partitions.map((p) => p.key) },
    partitions.map((p) => p.bytes),
  );
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    await writeFile(tmp, bytes, { mode: 0o600 });
    await rename(tmp, file);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}

/** The snapshot, or undefined when there is none or it is damaged. */
export async function readKeywordSnapshot(file: string): Promise<KeywordSnapshot | undefined> {
  let bytes: Uint8Array;
  try {
    bytes = await readFile(file);
  } catch {
    return undefined;
  }
  try {
    const frame = decodeFrame(MAGIC, bytes);
    const header = frame.header as Omit<KeywordSnapshot, "partitions"> & { partitions: string[] };
    if (typeof header.instance !== "string" || !Number.isSafeInteger(header.seen)) return undefined;
    const partitions = header.partitions.map((key) => ({ key, bytes: frame.next(Uint8Array) }));
    return { ...header, partitions };
  } catch {
    return undefined;
  }
}
