/**
 * Opens the database a server runs on: a PostgreSQL server when given a postgres:// url, otherwise
 * the embedded PGlite on a data directory. Both come back as the same Kysely handle, so services
 * never know which one they talk to.
 */
import { Kysely, sql } from "kysely";
import { PostgresJSDialect } from "kysely-postgres-js";
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import postgres from "postgres";
import type { Logger } from "../log/logger.ts";
import { createPGlite } from "./create_pglite.ts";
import { lockDataDir } from "./data_dir_lock.ts";
import { initdbInChild } from "./initdb_child.ts";
import { type Listen, listenLocally } from "./notices.ts";
import { PGliteDialect } from "./pglite_dialect.ts";
import { countWritesOf } from "./write_count.ts";

export interface OpenDatabaseOptions {
  /** postgres:// or postgresql:// selects a PostgreSQL server; unset or empty selects PGlite. */
  url?: string;
  /** PGlite's data directory, created (mode 0700) if missing. Required without a url. */
  dataDir?: string;
  log?: Logger;
  /** Pool size on PostgreSQL (default 10). PGlite is always one connection. */
  maxConnections?: number;
  /**
   * Where a new PGlite data directory is created: "child" runs initdb in a child process of this
   * binary (initdb_child.ts; only a compiled binary that registers INITDB_COMMAND can), so its
   * memory is given back. Default "in-process".
   */
  initdb?: "in-process" | "child";
  /** PGlite's shared_buffers (see CreatePGliteOptions); default PGlite's own (128MB). */
  sharedBuffers?: string;
}

export interface Database<DB> {
  db: Kysely<DB>;
  backend: "pglite" | "postgres";
  /** LISTEN for notices (notices.ts); also hears `announce` on this handle. */
  listen?: Listen;
  /** Closes the connections (and on PGlite releases the data directory). Safe to call twice. */
  close(): Promise<void>;
}

export async function openDatabase<DB>(options: OpenDatabaseOptions): Promise<Database<DB>> {
  const { url, dataDir, log } = options;
  if (url) {
    const scheme = url.slice(0, url.indexOf(":") + 1).toLowerCase();
    if (scheme !== "postgres:" && scheme !== "postgresql:") {
      const hint = "use postgres:// or postgresql://, or no url for the embedded database";
      throw new Error(`unsupported database url ${redactUrl(url)}: ${hint}`);
    }
    return await openPostgres<DB>(url, options.maxConnections ?? 10, log);
  }
  if (!dataDir) throw new Error("a data directory is required when no database url is given");
  return await openPGlite<DB>(dataDir, options.initdb ?? "in-process", options.sharedBuffers, log);
}

async function openPostgres<DB>(url: string, max: number, log?: Logger): Promise<Database<DB>> {
  const client = postgres(url, {
    max,
    // postgres.js prints notices (such as "relation already exists, skipping") to the console.
    onnotice: (notice) => log?.debug("postgres notice", { message: notice.message }),
  });
  const db = new Kysely<DB>({ dialect: new PostgresJSDialect({ postgres: client }) });
  try {
    // postgres.js connects lazily; a wrong url or a down server should fail the start, not the first request.
    await probe(db);
  } catch (err) {
    await db.destroy();
    throw new Error(`cannot connect to PostgreSQL at ${redactUrl(url)}: ${(err as Error).message}`, {
      cause: err,
    });
  }
  log?.debug("database opened", { backend: "postgres", url: redactUrl(url), maxConnections: max });
  // postgres.js listens on a connection of its own, listens again after losing it (calling onlisten
  // each time) and closes it with the pool.
  const listen: Listen = async (channel, handlers) => {
    const unlocal = listenLocally(db, channel, handlers);
    const { unlisten } = await client.listen(channel, (p) => handlers.notice(p), () => handlers.listening());
    return async () => {
      unlocal();
      await unlisten();
    };
  };
  return { db, backend: "postgres", listen, close: once(() => db.destroy()) };
}

async function openPGlite<DB>(
  dataDir: string,
  initdb: "in-process" | "child",
  sharedBuffers: string | undefined,
  log?: Logger,
): Promise<Database<DB>> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const lock = await lockDataDir(dataDir);
  const close = async (db?: Kysely<DB>) => {
    try {
      await db?.destroy();
    } finally {
      await lock.release();
    }
  };
  let db: Kysely<DB> | undefined;
  let pglite: Awaited<ReturnType<typeof createPGlite>> | undefined;
  try {
    // PG_VERSION is what PGlite itself checks to tell an initialised directory from a new one.
    if (initdb === "child" && !existsSync(join(dataDir, "PG_VERSION"))) {
      const started = performance.now();
      await initdbInChild(dataDir);
      log?.info("embedded database created", { dataDir, ms: Math.round(performance.now() - started) });
    }
    pglite = await createPGlite(dataDir, undefined, { sharedBuffers });
    const dialect = new PGliteDialect(pglite);
    db = new Kysely<DB>({ dialect });
    countWritesOf(db, dialect.writes);
    await probe(db);
  } catch (err) {
    await close(db);
    throw err;
  }
  log?.debug("database opened", { backend: "pglite", dataDir });
  const session = pglite;
  const kysely = db;
  // PGlite delivers a NOTIFY to its listeners as the statement that sent it returns; nothing is ever
  // missed. LISTEN runs beside the driver's mutex: call it at start, before queries run concurrently.
  const listen: Listen = async (channel, handlers) => {
    const unlocal = listenLocally(kysely, channel, handlers);
    const unlisten = await session.listen(channel, (p) => handlers.notice(p));
    handlers.listening();
    return async () => {
      unlocal();
      if (!session.closed) await unlisten();
    };
  };
  return { db, backend: "pglite", listen, close: once(() => close(db)) };
}

/**
 * Runs a first query through Kysely. Besides checking the database answers, this matters for close:
 * Kysely's destroy() does nothing for a driver that never ran a query, leaving the pool or PGlite open.
 */
async function probe<DB>(db: Kysely<DB>): Promise<void> {
  await sql`select 1`.execute(db);
}

/** The url with its user:password@ part masked; masks too much rather than too little. */
function redactUrl(url: string): string {
  const at = url.lastIndexOf("@");
  if (at < 0) return url;
  const slashes = url.indexOf("//");
  return slashes >= 0 && slashes < at
    ? `${url.slice(0, slashes + 2)}***${url.slice(at)}`
    : `***${url.slice(at)}`;
}

function once(fn: () => Promise<void>): () => Promise<void> {
  let done: Promise<void> | undefined;
  return () => done ??= fn();
}
