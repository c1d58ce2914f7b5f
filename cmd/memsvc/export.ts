import type { Command } from "@commander-js/extra-typings";
import { addExamples, CliError, envOption, type Io } from "../../internal/cli/mod.ts";

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
    .action(async (flags) => {
      const { exportMemory } = await import("../../server/memsvc/portability/export.ts");
      const { lineStream, writeOutput } = await import("../../server/memsvc/portability/lines.ts");
      const { openForTool, progressTo, toolConfig } = await import("../../server/memsvc/portability/tool.ts");
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
    });
  addExamples(command, [
    "# Everything, to a file (stop the server first when it uses the embedded database)\n" +
    "memsvc export --out memory.jsonl",
    "# One user, to stdout\nmemsvc export --user ada@example.com > ada.jsonl",
  ]);
}
