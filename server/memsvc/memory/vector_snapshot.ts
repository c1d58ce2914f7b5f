/**
 * The vector index's snapshot file: a JSON header (which database and embedder, the last `seq`
 * read, each partition's ids and array lengths) and then each partition's arrays as raw bytes.
 * Loading 100k built-in vectors from it takes tens of milliseconds where reading them from the
 * embedded database takes seconds. Written to a temporary file and renamed, so a crash mid-write
 * leaves the previous snapshot; a file that does not parse is ignored (the index then reads the
 * database).
 *
 * Version 2 stores a partition as it is held in memory (packed_vectors.ts's PackedLayout: postings
 * by dimension), each array at an offset aligned for its type, so loading makes views of the file's
 * bytes instead of copying and regrouping them. Version 1 (row by row: PackedArrays) is still read.
 */
import { Buffer } from "node:buffer";
import { readFile, rename, writeFile } from "node:fs/promises";
import type { PackedArrays, PackedLayout } from "./packed_vectors.ts";

const MAGIC_V1 = "memsvc-vectors-1\n";
const MAGIC = "memsvc-vectors-2\n";

export interface Snapshot {
  /** engine_state's instance id of the database the vectors came from. */
  instance: string;
  /** The embedder id the vectors were made by. */
  model: string;
  /** memory_vectors.seq of the last row read, as a decimal string. */
  seenSeq: string;
  partitions: { key: string; dim: number; layout: PackedLayout }[];
}

/** A snapshot as read: version 1 files give row-by-row arrays. */
export interface ReadSnapshot extends Omit<Snapshot, "partitions"> {
  partitions: { key: string; dim: number; layout?: PackedLayout; arrays?: PackedArrays }[];
}

type ArrayType =
  | Float32ArrayConstructor
  | Uint32ArrayConstructor
  | Int8ArrayConstructor
  | Uint16ArrayConstructor;

const ARRAYS_V1 = [
  ["scale", Float32Array],
  ["start", Uint32Array],
  ["indexStart", Uint32Array],
  ["count", Uint32Array],
  ["values", Int8Array],
  ["indices", Uint16Array],
] as const;

const ARRAYS = [
  ["scale", Float32Array],
  ["start", Uint32Array],
  ["count", Uint32Array],
  ["used", Uint32Array],
  ["values", Int8Array],
  ["postRows", Uint16Array],
  ["postValues", Int8Array],
] as const;

type ArrayName = (typeof ARRAYS)[number][0];
const ALIGN = 8;

export async function writeSnapshot(file: string, snapshot: Snapshot): Promise<void> {
  const chunks: Uint8Array[] = [];
  let offset = 0;
  const partitions = snapshot.partitions.map((p) => {
    const lengths = {} as Record<ArrayName, number>;
    for (const [name] of ARRAYS) {
      const a = p.layout[name];
      lengths[name] = a.length;
      chunks.push(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
      offset += a.byteLength;
      const pad = (ALIGN - offset % ALIGN) % ALIGN;
      chunks.push(new Uint8Array(pad));
      offset += pad;
    }
    return { key: p.key, dim: p.dim, ids: p.layout.ids, lengths };
  });
  const header = Buffer.from(JSON.stringify({ ...snapshot, partitions }));
  // The arrays start at an aligned offset of the file.
  const before = MAGIC.length + 4 + header.length;
  const size = Buffer.alloc(4);
  size.writeUInt32LE(header.length);
  const tmp = `${file}.tmp`;
  await writeFile(
    tmp,
    Buffer.concat([
      Buffer.from(MAGIC),
      size,
      header,
      new Uint8Array((ALIGN - before % ALIGN) % ALIGN),
      ...chunks,
    ]),
    { mode: 0o600 },
  );
  await rename(tmp, file);
}

export async function readSnapshot(file: string): Promise<ReadSnapshot | undefined> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch {
    return undefined;
  }
  try {
    const magic = bytes.subarray(0, MAGIC.length).toString();
    if (magic !== MAGIC && magic !== MAGIC_V1) return undefined;
    const v1 = magic === MAGIC_V1;
    let at = MAGIC.length;
    const headerLength = bytes.readUInt32LE(at);
    at += 4;
    const header = JSON.parse(bytes.subarray(at, at += headerLength).toString()) as
      & Omit<Snapshot, "partitions">
      & {
        partitions: { key: string; dim: number; ids: string[]; lengths: Record<string, number> }[];
      };
    if (!v1) at += (ALIGN - at % ALIGN) % ALIGN;
    const take = (Type: ArrayType, length: number) => {
      const byteLength = length * Type.BYTES_PER_ELEMENT;
      if (!Number.isSafeInteger(byteLength) || at + byteLength > bytes.length) {
        throw new Error("snapshot is truncated");
      }
      const from = bytes.byteOffset + at;
      at += byteLength;
      if (!v1) at += (ALIGN - at % ALIGN) % ALIGN;
      // A view of the file's bytes where the offset suits the type, else a copy.
      if (from % Type.BYTES_PER_ELEMENT === 0) return new Type(bytes.buffer as ArrayBuffer, from, length);
      const copy = new Uint8Array(byteLength);
      copy.set(new Uint8Array(bytes.buffer, from, byteLength));
      return new Type(copy.buffer);
    };
    const partitions = header.partitions.map((p) => {
      if (v1) {
        const arrays = { ids: p.ids } as PackedArrays;
        for (const [name, Type] of ARRAYS_V1) {
          (arrays as unknown as Record<string, unknown>)[name] = take(Type, p.lengths[name]!);
        }
        if (arrays.scale.length !== p.ids.length) throw new Error("snapshot rows do not match its ids");
        return { key: p.key, dim: p.dim, arrays };
      }
      const layout = { ids: p.ids } as PackedLayout;
      for (const [name, Type] of ARRAYS) {
        (layout as unknown as Record<string, unknown>)[name] = take(Type, p.lengths[name]!);
      }
      if (layout.scale.length !== p.ids.length) throw new Error("snapshot rows do not match its ids");
      return { key: p.key, dim: p.dim, layout };
    });
    return { instance: header.instance, model: header.model, seenSeq: header.seenSeq, partitions };
  } catch {
    return undefined;
  }
}
