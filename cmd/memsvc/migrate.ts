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
      if (!/^postgres(ql)?:\/\//.test(flags.to)) throw new CliError("--to must be a postgres:// URL", 2);
      // The work, and the databases it opens, load only when the command runs.
      await (await import("../../server/memsvc/portability/commands.ts")).runMigrate(flags, io);
    });
  addExamples(command, [
    "# Stop the server, then copy its embedded database into PostgreSQL\n" +
    "memsvc migrate --to postgres://memsvc:secret@db:5432/memsvc",
  ]);
}
