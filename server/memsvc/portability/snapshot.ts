/**
 * Whole-database backups: every table of memsvc's schema (identity tables, tokens, sessions and
 * vectors included) as JSON Lines, gzip'd by the caller.
 *
 *   {"type":"memsvc-backup","version":1,"createdAt":"...","backend":"...","migrations":["0001_..",..]}
 *   {"type":"row","table":"user","row":{...}}          one per row, tables in foreign-key order
 *   {"type":"end","counts":{"user":3,...}}             a backup without it is truncated
 *
 * Rows are PostgreSQL's own JSON of each row (row_to_json): timestamps keep their microseconds and
 * int8 its digits; bytea columns are base64. Everything is read in one REPEATABLE READ READ ONLY
 * transaction, so a backup taken while servers write is one consistent point in time.
 */
import { sql, type Transaction } from "kysely";
import type { Database } from "../../../internal/db/mod.ts";
import type { MemsvcDatabase } from "../store/db.ts";
import { migrations } from "../store/migrations/mod.ts";
import type { LineSink } from "./lines.ts";

export const BACKUP_TYPE = "memsvc-backup";
export const BACKUP_VERSION = 1;

/** Every table, parents before children; restore inserts in this order. */
export const TABLES = [
  "engine_state",
  "user",
  "session",
  "account",
  "verification",
  "user_tokens",
  "audit_log",
  "projects",
  "project_members",
  "user_active_project",
  "memory_entries",
  "memory_edges",
  "memory_vectors",
  "metrics_samples",
] as const;

const BATCH = 500;

// deno-lint-ignore no-explicit-any
type AnyTrx = Transaction<any>;

interface Column {
  name: string;
  type: string;
}

/** The stored (non-generated) columns of a table with their SQL types, in table order. */
async function columnsOf(trx: AnyTrx, table: string): Promise<Column[]> {
  const { rows } = await sql<Column>`
    select attname as name, format_type(atttypid, atttypmod) as type from pg_attribute
    where attrelid = ${`public.${quoteIdent(table)}`}::regclass and attnum > 0 and not attisdropped
      and attgenerated = '' order by attnum`.execute(trx);
  return rows;
}

function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

export interface SnapshotOptions {
  progress?: (message: string) => void;
}

/** Writes a backup of `database` to `sink`; returns the row count of each table. */
export async function writeSnapshot(
  database: Database<MemsvcDatabase>,
  sink: LineSink,
  options: SnapshotOptions = {},
): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  await database.db.transaction().setIsolationLevel("repeatable read").setAccessMode("read only")
    .execute(async (trx) => {
      const applied = await sql<{ name: string }>`select name from schema_migrations order by name`
        .execute(trx);
      await sink.write(JSON.stringify({
        type: BACKUP_TYPE,
        version: BACKUP_VERSION,
        createdAt: new Date().toISOString(),
        backend: database.backend,
        migrations: applied.rows.map((r) => r.name),
      }));
      for (const table of TABLES) {
        const columns = await columnsOf(trx, table);
        const select = sql.join(
          columns.map(({ name, type }) =>
            type === "bytea"
              ? sql`translate(encode(${sql.ref(name)}, 'base64'), E'\\n', '') as ${sql.ref(name)}`
              : sql.ref(name)
          ),
        );
        counts[table] = 0;
        for (let offset = 0;; offset += BATCH) {
          // ctid order is stable inside one snapshot, which is all paging needs here.
          const { rows } = await sql<{ r: string }>`
            select row_to_json(x)::text as r from (
              select ${select} from ${sql.table(table)} order by ctid limit ${BATCH} offset ${offset}
            ) x`.execute(trx);
          for (const { r } of rows) {
            await sink.write(`{"type":"row","table":${JSON.stringify(table)},"row":${r}}`);
          }
          counts[table] += rows.length;
          if (rows.length < BATCH) break;
        }
        options.progress?.(`${table}: ${counts[table]} rows`);
      }
      await sink.write(JSON.stringify({ type: "end", counts }));
    });
  return counts;
}

/** A backup that cannot be restored: the message says why. Nothing was changed. */
export class RestoreError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RestoreError";
  }
}

export interface RestoreOptions {
  /** Replace a database that already has users or memory entries. */
  force?: boolean;
  progress?: (message: string) => void;
}

/** Row counts of every table. */
export async function tableCounts(
  db: Database<MemsvcDatabase>["db"] | AnyTrx,
): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of TABLES) {
    const { rows } = await sql<{ n: string }>`select count(*) as n from ${sql.table(table)}`.execute(db);
    counts[table] = Number(rows[0]!.n);
  }
  return counts;
}

/**
 * Loads a backup into a migrated database, in one transaction: refuses when users or memory entries
 * exist (unless `force`), empties every table, inserts every row with all its columns, checks the
 * counts against the backup's end line, and moves the sequences past the restored values.
 */
export async function restoreSnapshot(
  database: Database<MemsvcDatabase>,
  lines: AsyncIterable<string>,
  options: RestoreOptions = {},
): Promise<Record<string, number>> {
  const known = new Set(Object.keys(migrations));
  return await database.db.transaction().execute(async (trx) => {
    const existing = await tableCounts(trx);
    if (!options.force && (existing.user! > 0 || existing.memory_entries! > 0)) {
      throw new RestoreError(
        `the target database is not empty (${existing.user} users, ${existing.memory_entries} memory entries): ` +
          "restore into an empty database, or pass --force to replace its contents",
      );
    }
    await sql`truncate table ${sql.join(TABLES.map((t) => sql.table(t)))} cascade`.execute(trx);
    // TRUNCATE fires no row triggers: tell servers on this database to drop every cached copy (at commit).
    await sql`select pg_notify('memsvc_cache', '*')`.execute(trx);
    const columns = new Map<string, Column[]>();
    for (const table of TABLES) columns.set(table, await columnsOf(trx, table));
    const counts: Record<string, number> = Object.fromEntries(TABLES.map((t) => [t, 0]));
    let header = false;
    let end: Record<string, number> | undefined;
    let batch: { table: string; rows: unknown[] } | undefined;
    const flush = async () => {
      if (!batch?.rows.length) return;
      await insertRows(trx, batch.table, columns.get(batch.table)!, batch.rows);
      counts[batch.table]! += batch.rows.length;
      batch.rows = [];
    };
    let n = 0;
    for await (const line of lines) {
      n++;
      let record: Record<string, unknown>;
      try {
        record = JSON.parse(line);
      } catch {
        throw new RestoreError(`line ${n}: not JSON`);
      }
      if (!header) {
        if (record.type !== BACKUP_TYPE) throw new RestoreError("not a memsvc backup (bad first line)");
        if (record.version !== BACKUP_VERSION) {
          throw new RestoreError(`backup version ${record.version} is not supported (this memsvc reads 1)`);
        }
        const unknown = (record.migrations as string[] ?? []).filter((m) => !known.has(m));
        if (unknown.length) {
          throw new RestoreError(
            `the backup was made by a newer memsvc (migrations ${unknown.join(", ")}): upgrade memsvc first`,
          );
        }
        header = true;
        continue;
      }
      if (end) throw new RestoreError(`line ${n}: data after the end line`);
      if (record.type === "end") {
        await flush();
        end = record.counts as Record<string, number>;
        continue;
      }
      const table = record.table as string;
      if (record.type !== "row" || !columns.has(table)) throw new RestoreError(`line ${n}: unknown record`);
      if (batch?.table !== table) {
        await flush();
        options.progress?.(`restoring ${table}`);
        batch = { table, rows: [] };
      }
      batch.rows.push(record.row);
      if (batch.rows.length >= BATCH) await flush();
    }
    if (!header) throw new RestoreError("the backup is empty");
    if (!end) throw new RestoreError("the backup is truncated: its end line is missing");
    for (const table of TABLES) {
      if ((end[table] ?? 0) !== counts[table]) {
        throw new RestoreError(`${table}: the backup lists ${end[table]} rows but holds ${counts[table]}`);
      }
    }
    await resetSequences(trx);
    return counts;
  });
}

async function insertRows(trx: AnyTrx, table: string, columns: Column[], rows: unknown[]): Promise<void> {
  const names = sql.join(columns.map((c) => sql.ref(c.name)));
  const values = sql.join(
    columns.map((c) =>
      c.type === "bytea" ? sql`decode(r.${sql.ref(c.name)}, 'base64')` : sql`r.${sql.ref(c.name)}`
    ),
  );
  const types = sql.join(
    columns.map((c) => sql`${sql.ref(c.name)} ${sql.raw(c.type === "bytea" ? "text" : c.type)}`),
  );
  await sql`insert into ${sql.table(table)} (${names})
    select ${values} from json_to_recordset(${JSON.stringify(rows)}::text::json) as r(${types})`.execute(trx);
}

/** nextval after a restore must not hand out a value a restored row already has. */
async function resetSequences(trx: AnyTrx): Promise<void> {
  await sql`select setval('memory_vectors_seq', coalesce((select max(seq) from memory_vectors), 0) + 1, false)`
    .execute(trx);
  await sql`select setval(pg_get_serial_sequence('audit_log', 'id'),
    coalesce((select max(id) from audit_log), 0) + 1, false)`.execute(trx);
}
