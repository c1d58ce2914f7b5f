/**
 * A named lock that holds across every process sharing one database: a PostgreSQL advisory lock,
 * taken on a connection held for the duration. PGlite is one process (its data dir is locked), so
 * there an in-process mutex per name gives the same guarantee without occupying its only connection.
 */
import { sql } from "kysely";
import { Mutex } from "./mutex.ts";
import type { Database } from "./open_database.ts";

const local = new WeakMap<object, Map<string, Mutex>>();

function mutexFor(database: object, name: string): Mutex {
  let byName = local.get(database);
  if (!byName) local.set(database, byName = new Map());
  let mutex = byName.get(name);
  if (!mutex) byName.set(name, mutex = new Mutex());
  return mutex;
}

/**
 * Runs `fn` while holding the lock `name`, waiting for other holders in this process and, on
 * PostgreSQL, in every other process. `fn` must use the pool (not the held connection).
 */
export async function withAdvisoryLock<T, DB>(
  database: Database<DB>,
  name: string,
  fn: () => Promise<T>,
): Promise<T> {
  const release = await mutexFor(database, name).lock();
  try {
    if (database.backend !== "postgres") return await fn();
    return await database.db.connection().execute(async (conn) => {
      await sql`select pg_advisory_lock(hashtextextended(${name}, 0))`.execute(conn);
      try {
        return await fn();
      } finally {
        await sql`select pg_advisory_unlock(hashtextextended(${name}, 0))`.execute(conn);
      }
    });
  } finally {
    release();
  }
}

/**
 * Runs `fn` only if the lock `name` is free across every process on the database; otherwise returns
 * `{ ran: false }` at once. Background loops use it so two servers sharing one PostgreSQL never run
 * the same loop together. On PGlite (one process) the caller's own in-flight guard is enough.
 */
export async function tryAdvisoryLock<T, DB>(
  database: Database<DB>,
  name: string,
  fn: () => Promise<T>,
): Promise<{ ran: true; value: T } | { ran: false }> {
  if (database.backend !== "postgres") return { ran: true, value: await fn() };
  return await database.db.connection().execute(async (conn) => {
    const { rows } = await sql<
      { locked: boolean }
    >`select pg_try_advisory_lock(hashtextextended(${name}, 0)) as locked`
      .execute(conn);
    if (!rows[0]?.locked) return { ran: false as const };
    try {
      return { ran: true as const, value: await fn() };
    } finally {
      await sql`select pg_advisory_unlock(hashtextextended(${name}, 0))`.execute(conn);
    }
  });
}
