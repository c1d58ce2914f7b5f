/**
 * The vector index's snapshot file: a JSON header (which database and embedder, the last `seq`
 * read, each partition's ids) and then each partition's packed arrays as raw bytes. Loading 100k
 * built-in vectors from it takes tens of milliseconds where reading them from the embedded
 * database takes seconds. Written to a temporary file and renamed, so a crash mid-write leaves
 * the previous snapshot; a file that does not parse is ignored (the index then reads the database).
 */
import { Buffer } from "node:buffer";
import { readFile, rename, writeFile } from "node:fs/promises";
import type { PackedArrays } from "./packed_vectors.ts";

const MAGIC = "memsvc-vectors-1\n";

export interface Snapshot {
  /** engine_state's instance id of the database the vectors came from. */
  instance: string;
  /** The embedder id the vectors were made by. */
  model: string;
  /** memory_vectors.seq of the last row read, as a decimal string. */
  seenSeq: string;
  partitions: { key: string; dim: number; arrays: PackedArrays }[];
}

const ARRAYS = [
  ["scale", Float32Array],
  ["start", Uint32Array],
  ["indexStart", Uint32Array],
  ["count", Uint32Array],
  ["values", Int8Array],
  ["indices", Uint16Array],
] as const;

type ArrayName = (typeof ARRAYS)[number][0];

export async function writeSnapshot(file: string, snapshot: Snapshot): Promise<void> {
  const chunks: Buffer[] = [];
  const partitions = snapshot.partitions.map((p) => {
    const lengths = {} as Record<ArrayName, number>;
    for (const [name] of ARRAYS) {
      const a = p.arrays[name];
      lengths[name] = a.length;
      chunks.push(Buffer.from(a.buffer, a.byteOffset, a.byteLength));
    }
    return { key: p.key, dim: p.dim, ids: p.arrays.ids, lengths };
  });
  const header = Buffer.from(JSON.stringify({ ...snapshot, partitions }));
  const size = Buffer.alloc(4);
  size.writeUInt32LE(header.length);
  const tmp = `${file}.tmp`;
  await writeFile(tmp, Buffer.concat([Buffer.from(MAGIC), size, header, ...chunks]), { mode: 0o600 });
  await rename(tmp, file);
}

export async function readSnapshot(file: string): Promise<Snapshot | undefined> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch {
    return undefined;
  }
  try {
    if (bytes.subarray(0, MAGIC.length).toString() !== MAGIC) return undefined;
    let at = MAGIC.length;
    const headerLength = bytes.readUInt32LE(at);
    at += 4;
    const header = JSON.parse(bytes.subarray(at, at += headerLength).toString()) as
      & Omit<Snapshot, "partitions">
      & {
        partitions: { key: string; dim: number; ids: string[]; lengths: Record<ArrayName, number> }[];
      };
    const partitions = header.partitions.map((p) => {
      const arrays = { ids: p.ids } as PackedArrays;
      for (const [name, Type] of ARRAYS) {
        const byteLength = p.lengths[name] * Type.BYTES_PER_ELEMENT;
        if (at + byteLength > bytes.length) throw new Error("snapshot is truncated");
        // A copy: the file's buffer offsets need not be aligned for the array type.
        const copy = new Uint8Array(byteLength);
        copy.set(bytes.subarray(at, at += byteLength));
        (arrays as unknown as Record<string, unknown>)[name] = new Type(copy.buffer);
      }
      if (arrays.scale.length !== p.ids.length) throw new Error("snapshot rows do not match its ids");
      return { key: p.key, dim: p.dim, arrays };
    });
    return { instance: header.instance, model: header.model, seenSeq: header.seenSeq, partitions };
  } catch {
    return undefined;
  }
}
