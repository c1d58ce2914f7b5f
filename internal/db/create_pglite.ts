/**
 * Starts PGlite on a data directory the same way from source and from a compiled binary, and makes
 * it return the same JavaScript values as postgres.js, so code and tests behave alike on both backends.
 */
import { PGlite, type PGliteOptions } from "@electric-sql/pglite";
import { Buffer } from "node:buffer";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { embeddedFile } from "../platform/mod.ts";

const BYTEA = 17;
const INT8 = 20;
const JSON_OID = 114;
const JSONB = 3802;
const EMBEDDED = ["pglite.wasm", "initdb.wasm", "pglite.data"] as const;

export interface CreatePGliteOptions {
  /**
   * PostgreSQL's shared_buffers, e.g. "32MB" (PGlite's default is 128MB). PGlite touches all of it at
   * start, so it is resident from the first second: about 130 MB of a server's memory at the default.
   * Below the working set, reads go to the file system's cache instead.
   */
  sharedBuffers?: string;
}

/**
 * `file` looks up a file embedded in a compiled binary (see internal/platform); from source it finds
 * none and PGlite loads its files from node_modules.
 */
export async function createPGlite(
  dataDir: string,
  file: (name: string) => Blob | undefined = embeddedFile,
  options: CreatePGliteOptions = {},
): Promise<PGlite> {
  // initdb's module is only needed to create a data directory (PG_VERSION is what PGlite checks):
  // compiling it anyway cost every later start its compile time and the memory of its code.
  const initialised = existsSync(join(dataDir, "PG_VERSION"));
  return await PGlite.create({
    dataDir,
    ...await embeddedAssets(file, !initialised),
    ...(options.sharedBuffers
      ? { startParams: [...PGlite.defaultStartParams, "-c", `shared_buffers=${options.sharedBuffers}`] }
      : {}),
    // PGlite returns int8 as a number, or a bigint past 2^53; postgres.js returns a string.
    // bytea travels as hex text; PGlite's own codec converts byte by byte in JavaScript, which made
    // reading 100k stored vectors take most of a minute. Buffer's native hex codec is many times faster.
    parsers: { [INT8]: (value: string) => value, [BYTEA]: hexToBytes },
    // PGlite passes a string to a json parameter as JSON text; postgres.js encodes every value,
    // strings included. Encoding always keeps a string a string on both backends.
    serializers: { [JSON_OID]: jsonEncode, [JSONB]: jsonEncode, [BYTEA]: bytesToHex },
  });
}

function jsonEncode(value: unknown): string {
  return JSON.stringify(value);
}

/** `\x0a1b...` (PostgreSQL's hex output for bytea) to bytes. */
export function hexToBytes(text: string): Uint8Array {
  const bytes = Buffer.from(text.slice(2), "hex");
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** Bytes to bytea hex input. */
export function bytesToHex(value: unknown): string {
  if (!(value instanceof Uint8Array)) throw new TypeError("Invalid input for bytea type");
  return "\\x" + Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString("hex");
}

async function embeddedAssets(
  file: (name: string) => Blob | undefined,
  needInitdb: boolean,
): Promise<Partial<PGliteOptions>> {
  const [wasm, initdb, fsBundle] = EMBEDDED.map(file);
  if (!wasm && !initdb && !fsBundle) return {};
  if (!wasm || !initdb || !fsBundle) {
    const missing = EMBEDDED.filter((name) => !file(name));
    throw new Error(`incomplete PGlite files in this binary: missing ${missing.join(", ")}`);
  }
  const [pgliteWasmModule, initdbWasmModule] = await Promise.all([
    WebAssembly.compile(await wasm.arrayBuffer()),
    needInitdb ? WebAssembly.compile(await initdb.arrayBuffer()) : undefined,
  ]);
  return { pgliteWasmModule, initdbWasmModule, fsBundle };
}
