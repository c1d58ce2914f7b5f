/**
 * How a long-running service (memsvc, vault) opens its embedded database, so both open it the same way.
 *
 * @example
 * await openMigratedDatabase<MyTables>({ url, dataDir, log, ...serviceDatabaseOptions() }, migrations);
 */
import { isCompiledBinary } from "../platform/worker.ts";
import type { OpenDatabaseOptions } from "./open_database.ts";

/**
 * PGlite makes all of shared_buffers resident at start (128MB by default). A service's hot data is
 * index pages and recent rows (memsvc's vectors and the vault's notes and search index live outside
 * the database), and pages outside the buffers are read from the file system's cache. 16MB instead of
 * 32MB: 21–34 MB less RSS for memsvc at 100,000 entries with the same server CPU per search; 8MB
 * instead of 16MB: PGlite's WebAssembly heap 8 MB smaller again, the same server CPU per search and
 * per write at 1,000 and 10,000 entries (docs/benchmarks.md, issue 25, MEMRT; the vault: issue 38).
 */
export const EMBEDDED_SHARED_BUFFERS = "8MB";

/**
 * The embedded database's settings for a service: shared_buffers as above, and a new data directory
 * created by initdb in a child process when running as a compiled binary (its WebAssembly memory,
 * about 400 MB and never given back, is not kept by the server).
 */
export function serviceDatabaseOptions(): Pick<OpenDatabaseOptions, "initdb" | "sharedBuffers"> {
  return { initdb: isCompiledBinary() ? "child" : "in-process", sharedBuffers: EMBEDDED_SHARED_BUFFERS };
}
