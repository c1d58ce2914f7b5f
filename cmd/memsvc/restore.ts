import type { Command } from "@commander-js/extra-typings";
import { addExamples, CliError, envOption, type Io } from "../../internal/cli/mod.ts";

/** `memsvc restore`: load a `memsvc backup` into an empty database, in one transaction. */
export function registerRestore(program: Command, io: Io): void {
  const command = program
    .command("restore")
    .summary("Restore a `memsvc backup` into an empty database")
    .description(
      "Load a `memsvc backup` file into the database `memsvc serve` uses: applies migrations, then in one " +
        "transaction inserts every row with all its columns (ids, timestamps, password hashes, sessions, " +
        "vectors). Refuses a database that has users or memory entries unless --force, which replaces " +
        "its contents. The embedded database must not be in use by a running server.",
    )
    .argument("<file>", "backup file (.jsonl.gz), or - for stdin")
    .option("--force", "replace the contents of a database that is not empty")
    .addOption(envOption("--data-dir <dir>", "embedded database directory", "MEMSVC_DATA_DIR"))
    .action(async (file, flags) => {
      const { openInput, readLines } = await import("../../server/memsvc/portability/lines.ts");
      const { RestoreError, restoreSnapshot } = await import("../../server/memsvc/portability/snapshot.ts");
      const { openForTool, progressTo, toolConfig } = await import("../../server/memsvc/portability/tool.ts");
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
    });
  addExamples(command, [
    "# Into a new embedded database\nmemsvc restore memsvc.jsonl.gz --data-dir ./restored",
    "# Replace what a PostgreSQL database holds\n" +
    "MEMSVC_DATABASE_URL=postgres://memsvc@db/memsvc memsvc restore memsvc.jsonl.gz --force",
  ]);
}
