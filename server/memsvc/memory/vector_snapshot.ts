/**
 * The vector index's snapshot file: a JSON header (which database and embedder, the last `seq`
 * read, each partition's ids and array lengths) and then each partition's arrays as raw bytes.
 * Loading 100k built-in vectors from it takes tens of milliseconds where reading them from the
 * embedded database takes seconds. Written to a temporary file and renamed, so a crash mid-write
 * leaves the previous snapshot; a file that does not parse is ignored (the index then reads the
 * database).
 *
 * Version 2 stores a partition as it is held in memory (packed_vectors.ts's PackedLayout: postings
 * by dimension), each array at an offset aligned for its type, so loading reads each array into
 * place instead of regrouping it: dense rows straight into the memory the scan reads (`DenseTarget`),
 * the rest into arrays of their own. Writing goes from the arrays where they are, without a copy of
 * the whole file. Version 1 (row by row: PackedArrays) is still read.
 *
 * Version 3 stores the ids as one array of 12 bytes a row (id_rows.ts PackedIds; ids of another
 * shape listed in the header) instead of a JSON array of strings: a load parses no 100,000 strings
 * that the index no longer keeps. Version 2 files still load.
 */
import { Buffer } from "node:buffer";
import { closeSync, fstatSync, openSync, readSync, writeSync } from "node:fs";
import { readFile, rename } from "node:fs/promises";
import { ID_BYTES, IdRows, type PackedIds } from "./id_rows.ts";
import type { PackedArrays, PackedLayout } from "./packed_vectors.ts";

const MAGIC_V1 = "memsvc-vectors-1\n";
const MAGIC_V2 = "memsvc-vectors-2\n";
const MAGIC = "memsvc-vectors-3\n";

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

/** Version 3: the arrays of version 2, then the ids' bytes. */
const ARRAYS_V3 = [...ARRAYS, ["ids", Uint8Array]] as const;

type ArrayName = (typeof ARRAYS_V3)[number][0];
const ALIGN = 8;

export async function writeSnapshot(file: string, snapshot: Snapshot): Promise<void> {
  const chunks: Uint8Array[] = [];
  let offset = 0;
  const partitions = snapshot.partitions.map((p) => {
    const lengths = {} as Record<ArrayName, number>;
    const ids = packedIds(p.layout.ids);
    for (const [name] of ARRAYS_V3) {
      const a = name === "ids" ? ids.bytes : p.layout[name];
      lengths[name] = a.length;
      chunks.push(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
      offset += a.byteLength;
      const pad = (ALIGN - offset % ALIGN) % ALIGN;
      chunks.push(new Uint8Array(pad));
      offset += pad;
    }
    return { key: p.key, dim: p.dim, rows: ids.rows, others: ids.others, lengths };
  });
  const header = Buffer.from(JSON.stringify({ ...snapshot, partitions }));
  // The arrays start at an aligned offset of the file.
  const before = MAGIC.length + 4 + header.length;
  const size = Buffer.alloc(4);
  size.writeUInt32LE(header.length);
  const tmp = `${file}.tmp`;
  // Written from the arrays where they are, not concatenated into one copy of the file (80 MB at the
  // peak for 100,000 dense rows), and synchronously: a dense layout's values are a view of its
  // WebAssembly memory, which a put while an asynchronous write waited could replace.
  const fd = openSync(tmp, "w", 0o600);
  try {
    for (
      const chunk of [
        Buffer.from(MAGIC),
        size,
        header,
        new Uint8Array((ALIGN - before % ALIGN) % ALIGN),
        ...chunks,
      ]
    ) {
      for (let done = 0; done < chunk.byteLength;) done += writeSync(fd, chunk, done);
    }
  } finally {
    closeSync(fd);
  }
  await rename(tmp, file);
}

/**
 * Where partition `index`'s dense values (`length` bytes; its `start` array read already) are read
 * to, or undefined for an array of their own. A loader passes one so that the values land where the
 * scan reads them (packed_vectors.ts `denseFor`), not in a buffer that is then copied.
 */
export type DenseTarget = (
  index: number,
  dim: number,
  start: Uint32Array,
  length: number,
) => Int8Array | undefined;

/**
 * Reads a snapshot, or undefined when there is none or it does not parse. Version 2 is read array by
 * array into arrays of their own (the file is never held whole: views of one file buffer kept all of
 * it alive), dense values where `denseInto` says.
 */
export async function readSnapshot(file: string, denseInto?: DenseTarget): Promise<ReadSnapshot | undefined> {
  let fd: number;
  try {
    fd = openSync(file, "r");
  } catch {
    return undefined;
  }
  try {
    const size = fstatSync(fd).size;
    let at = 0;
    /** Reads `into.byteLength` bytes at `at` (sync: loading runs before the server listens). */
    const read = (into: ArrayBufferView) => {
      const bytes = new Uint8Array(into.buffer, into.byteOffset, into.byteLength);
      if (at + bytes.length > size) throw new Error("snapshot is truncated");
      for (let done = 0; done < bytes.length;) {
        const n = readSync(fd, bytes, done, bytes.length - done, at + done);
        if (n === 0) throw new Error("snapshot is truncated");
        done += n;
      }
      at += bytes.length;
      return into;
    };
    const magic = Buffer.from(read(new Uint8Array(MAGIC.length)) as Uint8Array).toString();
    if (magic === MAGIC_V1) return parseV1(await readFile(file));
    if (magic !== MAGIC && magic !== MAGIC_V2) return undefined;
    const v3 = magic === MAGIC;
    const headerLength = Buffer.from(read(new Uint8Array(4)) as Uint8Array).readUInt32LE(0);
    const header = JSON.parse(
      Buffer.from(read(new Uint8Array(headerLength)) as Uint8Array).toString(),
    ) as Header;
    const align = () => (at += (ALIGN - at % ALIGN) % ALIGN);
    align();
    const partitions = header.partitions.map((p, index) => {
      const layout = { ids: p.ids } as PackedLayout;
      for (const [name, Type] of v3 ? ARRAYS_V3 : ARRAYS) {
        const length = p.lengths[name]!;
        if (!Number.isSafeInteger(length) || length < 0 || at + length * Type.BYTES_PER_ELEMENT > size) {
          throw new Error("snapshot is truncated");
        }
        const into = name === "values" ? denseInto?.(index, p.dim, layout.start, length) : undefined;
        const array = read(into ?? new Type(length));
        if (name === "ids") {
          layout.ids = { rows: p.rows!, bytes: array as Uint8Array<ArrayBuffer>, others: p.others ?? [] };
        } else (layout as unknown as Record<string, unknown>)[name] = array;
        align();
      }
      const rows = v3 ? p.rows : p.ids?.length;
      if (layout.scale.length !== rows) throw new Error("snapshot rows do not match its ids");
      if (v3 && (layout.ids as PackedIds).bytes.length !== rows * ID_BYTES) throw new Error("snapshot ids");
      return { key: p.key, dim: p.dim, layout };
    });
    return { instance: header.instance, model: header.model, seenSeq: header.seenSeq, partitions };
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

type Header = Omit<Snapshot, "partitions"> & {
  partitions: {
    key: string;
    dim: number;
    /** Versions 1 and 2. */
    ids?: string[];
    /** Version 3: rows, and the rows whose id is not in the bytes. */
    rows?: number;
    others?: [number, string][];
    lengths: Record<string, number>;
  }[];
};

/** Ids as version 3 stores them. */
function packedIds(ids: string[] | PackedIds): PackedIds {
  if (!Array.isArray(ids)) return ids;
  const rows = IdRows.own();
  rows.load(ids);
  return rows.packed(ids.length);
}

/** A version 1 file (row by row), read whole. */
function parseV1(bytes: Buffer): ReadSnapshot {
  let at = MAGIC_V1.length;
  const headerLength = bytes.readUInt32LE(at);
  at += 4;
  const header = JSON.parse(bytes.subarray(at, at += headerLength).toString()) as Header;
  const take = (Type: ArrayType, length: number) => {
    const byteLength = length * Type.BYTES_PER_ELEMENT;
    if (!Number.isSafeInteger(byteLength) || at + byteLength > bytes.length) {
      throw new Error("snapshot is truncated");
    }
    const from = bytes.byteOffset + at;
    at += byteLength;
    // A view of the file's bytes where the offset suits the type, else a copy.
    if (from % Type.BYTES_PER_ELEMENT === 0) return new Type(bytes.buffer as ArrayBuffer, from, length);
    const copy = new Uint8Array(byteLength);
    copy.set(new Uint8Array(bytes.buffer, from, byteLength));
    return new Type(copy.buffer);
  };
  const partitions = header.partitions.map((p) => {
    const arrays = { ids: p.ids! } as PackedArrays;
    for (const [name, Type] of ARRAYS_V1) {
      (arrays as unknown as Record<string, unknown>)[name] = take(Type, p.lengths[name]!);
    }
    if (arrays.scale.length !== p.ids!.length) throw new Error("snapshot rows do not match its ids");
    return { key: p.key, dim: p.dim, arrays };
  });
  return { instance: header.instance, model: header.model, seenSeq: header.seenSeq, partitions };
}
