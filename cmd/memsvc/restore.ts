import type { Command } from "@commander-js/extra-typings";
import { addExamples, envOption, type Io } from "../../internal/cli/mod.ts";

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
    // The work, and the database it opens, load only when the command runs.
    .action(async (file, flags) =>
      (await import("../../server/memsvc/portability/commands.ts")).runRestore(file, flags, io)
    );
  addExamples(command, [
    "# Into a new embedded database\nmemsvc restore memsvc.jsonl.gz --data-dir ./restored",
    "# Replace what a PostgreSQL database holds\n" +
    "MEMSVC_DATABASE_URL=postgres://memsvc@db/memsvc memsvc restore memsvc.jsonl.gz --force",
  ]);
}
