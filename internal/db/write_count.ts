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
 */
const counters = new WeakMap<object, () => number>();

/** Makes `count` the write count of `db` (the embedded database's opener does this). */
export function countWritesOf(db: object, count: () => number): void {
  counters.set(db, count);
}

/** The write count of `db`, or undefined when it has none (PostgreSQL, a transaction's handle). */
export function writeCount(db: object): number | undefined {
  return counters.get(db)?.();
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
