/**
 * What memsvc's portability commands do once their flags are parsed (cmd/memsvc defines them and loads
 * this when one runs): export, import, backup, restore and migrate, each opening the database as
 * tool.ts does and reporting progress on stderr. Import loads the embedder when it runs.
 */
import { CliError, type Io } from "../../../internal/cli/mod.ts";
import { exportMemory } from "./export.ts";
import { lineStream, openInput, readLines, writeOutput } from "./lines.ts";
import { describeDatabase } from "./open_database.ts";
import { backupThroughServer } from "./remote_backup.ts";
import { RestoreError, restoreSnapshot, tableCounts, writeSnapshot } from "./snapshot.ts";
import { openForTool, progressTo, toolConfig } from "./tool.ts";

/** `memsvc export`: every user's (or one user's) projects, entries and links as JSON Lines. */
export async function runExport(
  flags: { user?: string; out: string; dataDir?: string },
  io: Io,
): Promise<void> {
  const config = toolConfig({ MEMSVC_DATA_DIR: flags.dataDir });
  const database = await openForTool(
    config,
    "stop `memsvc serve` before exporting the embedded database",
  );
  try {
    let counts: Awaited<ReturnType<typeof exportMemory>> | undefined;
    const progress = progressTo(io);
    await writeOutput(
      flags.out,
      lineStream(async (sink) => {
        counts = await exportMemory(database, sink, { email: flags.user, progress });
      }),
    ).catch((err) => {
      if (/^no user with email/.test((err as Error).message)) throw new CliError((err as Error).message);
      throw err;
    });
    io.stderr.write(
      `exported ${counts!.users} users, ${counts!.projects} projects, ${counts!.entries} entries, ` +
        `${counts!.edges} edges\n`,
    );
  } finally {
    await database.close();
  }
}

/** `memsvc import`: a `memsvc export` file, idempotently, in one transaction. */
export async function runImport(
  file: string,
  flags: { createUsers?: boolean; dataDir?: string },
  io: Io,
): Promise<void> {
  const { createEmbedder } = await import("../embeddings/mod.ts");
  const { ImportError, importMemory, parseExport } = await import(
    "./import.ts"
  );
  const config = toolConfig({ MEMSVC_DATA_DIR: flags.dataDir });
  const progress = progressTo(io);
  let records;
  try {
    records = await parseExport(readLines(openInput(file)));
  } catch (err) {
    if (err instanceof ImportError) throw new CliError(`${file}: ${err.message}`);
    if ((err as NodeJS.ErrnoException).code === "ENOENT") throw new CliError(`${file}: no such file`);
    throw err;
  }
  const embedder = createEmbedder(config);
  const database = await openForTool(
    config,
    "stop `memsvc serve` before importing into the embedded database",
  );
  try {
    const r = await importMemory(database, records, {
      embedder,
      createUsers: flags.createUsers === true,
      progress,
    });
    io.stderr.write(
      `imported: ${r.entriesInserted} new entries (${r.entriesExisting} already present), ` +
        `${r.edgesInserted} new edges, ${r.projectsCreated} new projects, ${r.usersCreated} new users\n`,
    );
  } catch (err) {
    if (err instanceof ImportError) throw new CliError(`nothing imported: ${err.message}`);
    throw err;
  } finally {
    await database.close();
  }
}

/** `memsvc backup`: every table in one consistent snapshot, or through a running server (--url). */
export async function runBackup(
  file: string,
  flags: { url?: string; dataDir?: string },
  io: Io,
): Promise<void> {
  const progress = progressTo(io);
  if (flags.url) {
    await backupThroughServer(flags.url, file, process.env.MEMSVC_TOKEN);
    progress(`backup written to ${file}`);
    return;
  }
  const config = toolConfig({ MEMSVC_DATA_DIR: flags.dataDir });
  const database = await openForTool(
    config,
    "a running server holds the embedded database: take the backup through it with " +
      "--url http://127.0.0.1:7778 (and an admin session token in MEMSVC_TOKEN)",
  );
  try {
    await writeOutput(
      file,
      lineStream((sink) => writeSnapshot(database, sink, { progress }), { gzip: true }),
    );
  } finally {
    await database.close();
  }
  progress(`backup written to ${file}`);
}

/** `memsvc restore`: a backup into an empty database (or, --force, one replaced). */
export async function runRestore(
  file: string,
  flags: { force?: boolean; dataDir?: string },
  io: Io,
): Promise<void> {
  const config = toolConfig({ MEMSVC_DATA_DIR: flags.dataDir });
  const progress = progressTo(io);
  const input = openInput(file);
  const database = await openForTool(
    config,
    "stop `memsvc serve` before restoring the embedded database",
  );
  try {
    const counts = await restoreSnapshot(database, readLines(input), {
      force: flags.force === true,
      progress,
    });
    const total = Object.values(counts).reduce((a, b) => a + b, 0);
    progress(`restored ${total} rows (${counts.user} users, ${counts.memory_entries} memory entries)`);
  } catch (err) {
    if (err instanceof RestoreError) throw new CliError(`nothing restored: ${err.message}`);
    if ((err as NodeJS.ErrnoException).code === "ENOENT") throw new CliError(`${file}: no such file`);
    throw err;
  } finally {
    await input.cancel().catch(() => {});
    await database.close();
  }
}

/** `memsvc migrate --to`: the embedded database copied into PostgreSQL, row counts checked. */
export async function runMigrate(flags: { to: string; dataDir?: string }, io: Io): Promise<void> {
  const config = toolConfig({ MEMSVC_DATA_DIR: flags.dataDir });
  const progress = progressTo(io);
  const source = await openForTool(config, "stop `memsvc serve` before migrating the embedded database");
  try {
    const target = await openForTool({ ...config, MEMSVC_DATABASE_URL: flags.to }, "");
    try {
      progress(
        `copying ${describeDatabase(config)} to ${
          describeDatabase({ ...config, MEMSVC_DATABASE_URL: flags.to })
        }`,
      );
      let sent: Record<string, number> = {};
      const stream = lineStream(async (sink) => {
        sent = await writeSnapshot(source, sink);
      });
      let copied: Record<string, number>;
      try {
        copied = await restoreSnapshot(target, readLines(stream), { progress });
      } catch (err) {
        // Stops the source snapshot, which otherwise waits for a reader forever. A stream the
        // restore had started reading is locked and was already cancelled by it.
        if (!stream.locked) await stream.cancel(err).catch(() => {});
        if (err instanceof RestoreError) throw new CliError(`nothing copied: ${err.message}`);
        throw err;
      }
      const after = await tableCounts(target.db);
      const wrong = Object.keys(sent).filter((t) => sent[t] !== copied[t] || sent[t] !== after[t]);
      if (wrong.length) throw new CliError(`row counts differ after the copy: ${wrong.join(", ")}`);
      for (const [table, n] of Object.entries(after)) progress(`  ${table}: ${n} rows`);
      progress(`done: run memsvc serve with MEMSVC_DATABASE_URL set to the target`);
    } finally {
      await target.close();
    }
  } finally {
    await source.close();
  }
}
