/**
 * The one module that speaks zip: zip.js in its native build (the runtime's CompressionStream; no
 * web workers, no wasm), so it runs the same under Deno, Node and a Bun-compiled binary. Archives
 * are read through their central directory with random access to a file on disk (an upload is
 * written to a temporary file first), and written as a stream.
 */
import { open } from "node:fs/promises";
import type { FileHandle } from "node:fs/promises";
import {
  configure,
  type Entry,
  Reader,
  Uint8ArrayReader,
  Writer,
  ZipReader,
  ZipWriter,
} from "@zip.js/zip.js/index-native.js";

configure({ useWebWorkers: false });

/** An entry's bytes went past what the caller allows (its declared size can lie). */
export class EntryTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`more than ${limit} bytes`);
    this.name = "EntryTooLargeError";
  }
}

/** The file is not a zip archive (or its central directory is unreadable). */
export class NotAZipError extends Error {
  constructor(cause: unknown) {
    super("not a zip archive", { cause });
    this.name = "NotAZipError";
  }
}

export interface ZipEntry {
  /** The name as stored ("/"-separated; a folder's ends in "/"). */
  path: string;
  directory: boolean;
  symlink: boolean;
  /** Declared uncompressed size. */
  size: number;
  mtime: Date;
  /** The bytes, refused with EntryTooLargeError past `limit`. */
  read(limit: number): Promise<Uint8Array>;
}

/** Random access to a file: zip.js reads the end (the central directory) first. */
class FileRangeReader extends Reader<string> {
  #handle?: FileHandle;

  constructor(readonly path: string) {
    super(path);
  }

  override async init(): Promise<void> {
    this.#handle = await open(this.path, "r");
    this.size = (await this.#handle.stat()).size;
  }

  override async readUint8Array(index: number, length: number): Promise<Uint8Array> {
    const buf = new Uint8Array(length);
    const { bytesRead } = await this.#handle!.read(buf, 0, length, index);
    return buf.subarray(0, bytesRead);
  }

  async close(): Promise<void> {
    await this.#handle?.close();
  }
}

/** Collects bytes up to a limit. */
class LimitedWriter extends Writer<Uint8Array> {
  readonly #chunks: Uint8Array[] = [];
  #length = 0;

  constructor(readonly limit: number) {
    super();
  }

  override writeUint8Array(array: Uint8Array): void {
    this.#length += array.length;
    if (this.#length > this.limit) throw new EntryTooLargeError(this.limit);
    this.#chunks.push(array.slice());
  }

  override getData(): Uint8Array {
    const out = new Uint8Array(this.#length);
    let at = 0;
    for (const c of this.#chunks) {
      out.set(c, at);
      at += c.length;
    }
    return out;
  }
}

/** The entries of the zip file at `path`; `close` when done reading them. */
export async function openZipFile(path: string): Promise<{ entries: ZipEntry[]; close(): Promise<void> }> {
  const file = new FileRangeReader(path);
  const reader = new ZipReader(file);
  let entries: Entry[];
  try {
    // Names that would climb out are refused one by one by the import plan (and listed), not the archive.
    entries = await reader.getEntries({ filenameValidation: "tolerant" });
  } catch (err) {
    await file.close();
    throw new NotAZipError(err);
  }
  return {
    entries: entries.map((e) => ({
      path: e.filename,
      directory: e.directory,
      symlink: e.symlink,
      size: e.uncompressedSize,
      mtime: e.lastModDate,
      read: async (limit: number) => {
        if (e.directory || !e.getData) return new Uint8Array();
        try {
          return await e.getData(new LimitedWriter(limit));
        } catch (err) {
          if (err instanceof EntryTooLargeError) throw err;
          // zip.js wraps what a writer throws; keep the size refusal recognisable.
          if ((err as { cause?: unknown })?.cause instanceof EntryTooLargeError) {
            throw (err as { cause: Error }).cause;
          }
          throw err;
        }
      },
    })),
    close: async () => {
      await reader.close();
      await file.close();
    },
  };
}

/**
 * A zip written as a stream: `add` entries one after another, then `close`; `readable` carries the
 * archive as it is made (with backpressure: `add` waits while nobody reads). `level`: deflate's, 0
 * (stored) to 9, default 6.
 */
export function zipStream(options: { level?: number } = {}): {
  readable: ReadableStream<Uint8Array>;
  add(path: string, bytes: Uint8Array, mtime: Date): Promise<void>;
  close(): Promise<void>;
  abort(reason: unknown): Promise<void>;
} {
  const pipe = new TransformStream<Uint8Array, Uint8Array>();
  const writer = new ZipWriter(pipe.writable, { level: options.level ?? 6, keepOrder: true });
  return {
    readable: pipe.readable,
    add: async (path, bytes, mtime) => {
      await writer.add(path, new Uint8ArrayReader(bytes), { lastModDate: mtime });
    },
    close: async () => {
      await writer.close();
    },
    abort: async (reason) => {
      await pipe.writable.abort(reason).catch(() => {});
    },
  };
}
