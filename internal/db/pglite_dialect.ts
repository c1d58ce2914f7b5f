/**
 * A Kysely dialect for PGlite. PGlite is one PostgreSQL session in this process, so the driver hands
 * out that single connection under a mutex: a transaction holds it from BEGIN to COMMIT/ROLLBACK and
 * queries from other code paths wait instead of running inside someone else's transaction.
 *
 * Inside `db.transaction().execute(fn)`, use the transaction object: awaiting a query on the outer
 * `db` there waits for the transaction to end and never returns (on PostgreSQL it would run outside
 * the transaction instead, which is a bug too).
 */
import type { PGlite } from "@electric-sql/pglite";
import {
  CompiledQuery,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Dialect,
  type DialectAdapter,
  type Driver,
  type Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type QueryCompiler,
  type QueryResult,
  type TransactionSettings,
} from "kysely";
import { Mutex } from "./mutex.ts";
import { keepsCopies, mayWrite, type WriteCounts } from "./write_count.ts";

export class PGliteDialect implements Dialect {
  readonly #pglite: PGlite;
  /** Statements run that may have changed data (write_count.ts). */
  readonly writes: WriteCounts = { count: 0, unmarked: 0 };

  constructor(pglite: PGlite) {
    this.#pglite = pglite;
  }

  createAdapter(): DialectAdapter {
    return new PostgresAdapter();
  }

  createDriver(): Driver {
    return new PGliteDriver(this.#pglite, this.writes);
  }

  createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new PostgresIntrospector(db);
  }

  createQueryCompiler(): QueryCompiler {
    return new PostgresQueryCompiler();
  }
}

class PGliteDriver implements Driver {
  readonly #pglite: PGlite;
  readonly #connection: PGliteConnection;
  readonly #mutex = new Mutex();
  #release?: () => void;

  constructor(pglite: PGlite, writes: WriteCounts) {
    this.#pglite = pglite;
    this.#connection = new PGliteConnection(pglite, writes);
  }

  async init(): Promise<void> {
    await this.#pglite.waitReady;
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    this.#release = await this.#mutex.lock();
    return this.#connection;
  }

  releaseConnection(): Promise<void> {
    this.#release?.();
    this.#release = undefined;
    return Promise.resolve();
  }

  async beginTransaction(_connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    let statement = "begin";
    if (settings.isolationLevel) statement += ` isolation level ${settings.isolationLevel}`;
    if (settings.accessMode) statement += ` ${settings.accessMode}`;
    await this.#pglite.query(statement);
  }

  async commitTransaction(): Promise<void> {
    // PostgreSQL answers COMMIT with ROLLBACK when an earlier statement failed inside the transaction.
    const { command } = await this.#pglite.query("commit");
    if (command === "ROLLBACK") {
      throw new Error("transaction was rolled back: an earlier statement in it failed");
    }
  }

  async rollbackTransaction(): Promise<void> {
    await this.#pglite.query("rollback");
  }

  async savepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`savepoint ${quote(name)}`));
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`rollback to savepoint ${quote(name)}`));
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`release savepoint ${quote(name)}`));
  }

  async destroy(): Promise<void> {
    // Let a running query or transaction finish before the session goes away.
    const release = await this.#mutex.lock();
    try {
      if (!this.#pglite.closed) await this.#pglite.close();
    } finally {
      release();
    }
  }
}

class PGliteConnection implements DatabaseConnection {
  readonly #pglite: PGlite;
  readonly #writes: WriteCounts;

  constructor(pglite: PGlite, writes: WriteCounts) {
    this.#pglite = pglite;
    this.#writes = writes;
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    // Counted before it runs: a copy read after this statement started is judged against it.
    if (mayWrite(query.sql)) {
      this.#writes.count++;
      if (!keepsCopies(query.sql)) this.#writes.unmarked++;
    }
    const result = await this.#pglite.query<R>(query.sql, [...query.parameters]);
    const changed = ["INSERT", "UPDATE", "DELETE", "MERGE"].includes(result.command ?? "");
    return {
      rows: result.rows,
      numAffectedRows: changed ? BigInt(result.affectedRows ?? 0) : undefined,
    };
  }

  streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error("streaming queries is not supported on PGlite");
  }
}

function quote(identifier: string): string {
  return `"${identifier.replaceAll('"', '""')}"`;
}
