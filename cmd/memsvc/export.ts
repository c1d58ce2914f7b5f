import type { Command } from "@commander-js/extra-typings";
import { addExamples, envOption, type Io } from "../../internal/cli/mod.ts";

/** `memsvc export`: users' memory as portable JSON Lines (no secrets, no vectors). */
export function registerExport(program: Command, io: Io): void {
  const command = program
    .command("export")
    .summary("Export memory entries, projects and links as portable JSON Lines")
    .description(
      "Write every user's (or one user's) projects, memory entries and links as JSON Lines, for " +
        "`memsvc import` into another installation. Passwords, sessions, tokens and vectors are not " +
        "exported. Reads the database `memsvc serve` uses (MEMSVC_DATABASE_URL, else MEMSVC_DATA_DIR); " +
        "the embedded database must not be in use by a running server.",
    )
    .option("--user <email>", "export only this user")
    .option("--out <file>", "output file, or - for stdout (default -)", "-")
    .addOption(envOption("--data-dir <dir>", "embedded database directory", "MEMSVC_DATA_DIR"))
    // The work, and the database it opens, load only when the command runs.
    .action(async (flags) =>
      (await import("../../server/memsvc/portability/commands.ts")).runExport(flags, io)
    );
  addExamples(command, [
    "# Everything, to a file (stop the server first when it uses the embedded database)\n" +
    "memsvc export --out memory.jsonl",
    "# One user, to stdout\nmemsvc export --user ada@example.com > ada.jsonl",
  ]);
}
