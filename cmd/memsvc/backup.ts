import type { Command } from "@commander-js/extra-typings";
import { addExamples, envOption, type Io } from "../../internal/cli/mod.ts";

/** `memsvc backup`: a consistent gzip'd JSON Lines snapshot of every table. */
export function registerBackup(program: Command, io: Io): void {
  const command = program
    .command("backup")
    .summary("Write a consistent backup of the whole database")
    .description(
      "Write every table (users, sessions, tokens, projects, entries, links, vectors, metrics) as gzip'd " +
        "JSON Lines, read in one consistent snapshot, for `memsvc restore`. On PostgreSQL " +
        "(MEMSVC_DATABASE_URL) this works while servers run. A running server holds the embedded " +
        "database, so then pass --url to have that server write the backup (GET /v1/admin/backup) with " +
        "an admin session token in MEMSVC_TOKEN.",
    )
    .argument("<file>", "backup file to write (.jsonl.gz), or - for stdout")
    .option("--url <server>", "take the backup through this running memsvc server")
    .addOption(envOption("--data-dir <dir>", "embedded database directory", "MEMSVC_DATA_DIR"))
    // The work, and the database it opens, load only when the command runs.
    .action(async (file, flags) =>
      (await import("../../server/memsvc/portability/commands.ts")).runBackup(file, flags, io)
    );
  addExamples(command, [
    "# PostgreSQL, while the service runs\nMEMSVC_DATABASE_URL=postgres://memsvc@db/memsvc memsvc backup memsvc.jsonl.gz",
    "# Embedded database of a running server, with an admin session token\n" +
    "MEMSVC_TOKEN=ns_... memsvc backup memsvc.jsonl.gz --url http://127.0.0.1:7778",
  ]);
}
