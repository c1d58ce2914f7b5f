import type { Command } from "@commander-js/extra-typings";
import { addExamples, envOption, type Io } from "../../internal/cli/mod.ts";

/** `memsvc import`: load a `memsvc export` file, idempotently, in one transaction. */
export function registerImport(program: Command, io: Io): void {
  const command = program
    .command("import")
    .summary("Import a `memsvc export` file")
    .description(
      "Load a `memsvc export` file into the database `memsvc serve` uses, in one transaction (a failure " +
        "changes nothing). Users are matched by email and must exist unless --create-users; projects by " +
        "owner and name; entries by (user, project, namespace, content): existing ones are left alone, so " +
        "importing a file twice changes nothing. New entries keep every field and are embedded with the " +
        "configured embedder. The embedded database must not be in use by a running server.",
    )
    .argument("<file>", "export file (plain or gzip'd), or - for stdin")
    .option("--create-users", "create missing users, without a password (an admin sets one later)")
    .addOption(envOption("--data-dir <dir>", "embedded database directory", "MEMSVC_DATA_DIR"))
    // The work, and the database it opens, load only when the command runs.
    .action(async (file, flags) =>
      (await import("../../server/memsvc/portability/commands.ts")).runImport(file, flags, io)
    );
  addExamples(command, [
    "# Import into the embedded database (server stopped)\nmemsvc import memory.jsonl",
    "# Into PostgreSQL, creating users that do not exist yet\n" +
    "MEMSVC_DATABASE_URL=postgres://memsvc@db/memsvc memsvc import memory.jsonl --create-users",
  ]);
}
