import type { Command } from "@commander-js/extra-typings";
import { addExamples, CliError, envOption, type Io } from "../../internal/cli/mod.ts";

/** `memsvc migrate --to`: copy the embedded database into a PostgreSQL server. */
export function registerMigrate(program: Command, io: Io): void {
  const command = program
    .command("migrate")
    .summary("Copy the embedded database into PostgreSQL")
    .description(
      "Copy every table of the current database (the embedded one in MEMSVC_DATA_DIR, with the server " +
        "stopped) into a PostgreSQL database: migrates the target, refuses one that already has users or " +
        "memory entries, copies in one transaction on the target and checks the row counts. Then run the " +
        "server with MEMSVC_DATABASE_URL set to the target.",
    )
    .requiredOption("--to <postgres-url>", "target PostgreSQL database (postgres://...)")
    .addOption(envOption("--data-dir <dir>", "embedded database directory", "MEMSVC_DATA_DIR"))
    .action(async (flags) => {
      const { describeDatabase } = await import("../../server/memsvc/portability/open_database.ts");
      const { lineStream, readLines } = await import("../../server/memsvc/portability/lines.ts");
      const { RestoreError, restoreSnapshot, tableCounts, writeSnapshot } = await import(
        "../../server/memsvc/portability/snapshot.ts"
      );
      const { openForTool, progressTo, toolConfig } = await import("../../server/memsvc/portability/tool.ts");
      if (!/^postgres(ql)?:\/\//.test(flags.to)) throw new CliError("--to must be a postgres:// URL", 2);
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
    });
  addExamples(command, [
    "# Stop the server, then copy its embedded database into PostgreSQL\n" +
    "memsvc migrate --to postgres://memsvc:secret@db:5432/memsvc",
  ]);
}
