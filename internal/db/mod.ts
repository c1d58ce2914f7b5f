/**
 * The database layer every server uses: Kysely over PostgreSQL, either a server (postgres.js) or the
 * embedded PGlite, plus forward-only migrations that work on both.
 *
 * @example
 * const { database, applied } = await openMigratedDatabase<MyTables>(
 *   { url: env.DATABASE_URL, dataDir, log },
 *   migrations,
 * );
 * // ... database.db.selectFrom("things") ...
 * await database.close();
 */
export { type Database, openDatabase, type OpenDatabaseOptions } from "./open_database.ts";
export { migrate, type Migration, type MigrationStatus, migrationStatus } from "./migrate.ts";
export { type MigratedDatabase, openMigratedDatabase } from "./open_migrated.ts";
export { EMBEDDED_SHARED_BUFFERS, serviceDatabaseOptions } from "./service_database.ts";
export { tryAdvisoryLock, withAdvisoryLock } from "./advisory_lock.ts";
export { Mutex } from "./mutex.ts";
export { initDataDir, INITDB_COMMAND } from "./initdb_child.ts";
export { GroupCommit, type GroupCommitOptions } from "./group_commit.ts";
export { ChangeCursor } from "./change_cursor.ts";
export { keepingCopies, KEEPS_COPIES, unmarkedWriteCount, writeCount } from "./write_count.ts";
export { announce, type Listen, type NoticeHandlers } from "./notices.ts";
export { isAlive as isProcessAlive } from "./data_dir_lock.ts";
