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
    .action(async (file, flags) => {
      const { lineStream, writeOutput } = await import("../../server/memsvc/portability/lines.ts");
      const { writeSnapshot } = await import("../../server/memsvc/portability/snapshot.ts");
      const { openForTool, progressTo, toolConfig } = await import("../../server/memsvc/portability/tool.ts");
      const progress = progressTo(io);
      if (flags.url) {
        const { backupThroughServer } = await import("../../server/memsvc/portability/remote_backup.ts");
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
    });
  addExamples(command, [
    "# PostgreSQL, while the service runs\nMEMSVC_DATABASE_URL=postgres://memsvc@db/memsvc memsvc backup memsvc.jsonl.gz",
    "# Embedded database of a running server, with an admin session token\n" +
    "MEMSVC_TOKEN=ns_... memsvc backup memsvc.jsonl.gz --url http://127.0.0.1:7778",
  ]);
}
