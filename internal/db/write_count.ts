/**
 * How many statements that may have changed data a database handle has run, for in-process copies of
 * an embedded database. A PGlite session belongs to this process alone (its data dir is locked), so
 * every change passes through its driver: while the count has not moved since a copy was read, the
 * copy is still what the database holds. PostgreSQL handles have no count (other processes write).
 *
 * @example
 * const before = writeCount(db); // undefined: not an embedded database, read every time
 * const copy = await readIt(db);
 * if (before !== undefined && writeCount(db) === before) keep(copy, before);
 *
 * Copies of rows key on `unmarkedWriteCount` instead: the same count less the statements that open
 * with KEEPS_COPIES, so this process's own inserts (whose rows their issuer copies itself) do not
 * throw away every copy the way any other write must.
 */

import type { CompiledQuery } from "kysely";

/** What the embedded database's driver counts (pglite_dialect.ts). */
export interface WriteCounts {
  /** Statements that may write. */
  count: number;
  /** Of those, the ones not opening with KEEPS_COPIES. */
  unmarked: number;
}

/**
 * Opens a statement that changes no row an in-process copy may hold other than as its issuer tells
 * the copies itself: it adds rows (new ids), or writes rows nothing copies, or its issuer applies
 * what it returns. Only the issuer of such a statement may use it; a wrong mark serves stale copies.
 */
export const KEEPS_COPIES = "/* keeps copies */ ";

const counters = new WeakMap<object, WriteCounts>();

/** Makes `counts` the write counts of `db` (the embedded database's opener does this). */
export function countWritesOf(db: object, counts: WriteCounts): void {
  counters.set(db, counts);
}

/** The write count of `db`, or undefined when it has none (PostgreSQL, a transaction's handle). */
export function writeCount(db: object): number | undefined {
  return counters.get(db)?.count;
}

/** The statements that may write and are not marked KEEPS_COPIES, or undefined as for writeCount. */
export function unmarkedWriteCount(db: object): number | undefined {
  return counters.get(db)?.unmarked;
}

/** A query builder's compiled statement opened with KEEPS_COPIES, to run with `db.executeQuery`. */
export function keepingCopies<R>(query: CompiledQuery<R>): CompiledQuery<R> {
  return { ...query, sql: KEEPS_COPIES + query.sql };
}

/** Whether a statement is marked KEEPS_COPIES. */
export function keepsCopies(statement: string): boolean {
  return statement.startsWith(KEEPS_COPIES);
}

/**
 * Whether a statement may change data. Only a plain SELECT calling nothing that writes is judged not
 * to; anything else counts (a false "may" only costs a cache its copy, a false "may not" is a bug).
 */
export function mayWrite(statement: string): boolean {
  return !/^\s*select\b/i.test(statement) || SELECT_THAT_WRITES.test(statement);
}

/** Sequence calls, notices, SELECT INTO, row locks and large objects: ways a SELECT changes state. */
const SELECT_THAT_WRITES =
  /\b(nextval|setval|pg_notify|into|for\s+(no\s+key\s+)?update|for\s+(key\s+)?share|lo_\w+)\b/i;
