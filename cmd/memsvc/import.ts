import type { Command } from "@commander-js/extra-typings";
import { addExamples, CliError, envOption, type Io } from "../../internal/cli/mod.ts";

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
    .action(async (file, flags) => {
      const { createEmbedder } = await import("../../server/memsvc/embeddings/mod.ts");
      const { ImportError, importMemory, parseExport } = await import(
        "../../server/memsvc/portability/import.ts"
      );
      const { openInput, readLines } = await import("../../server/memsvc/portability/lines.ts");
      const { openForTool, progressTo, toolConfig } = await import("../../server/memsvc/portability/tool.ts");
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
    });
  addExamples(command, [
    "# Import into the embedded database (server stopped)\nmemsvc import memory.jsonl",
    "# Into PostgreSQL, creating users that do not exist yet\n" +
    "MEMSVC_DATABASE_URL=postgres://memsvc@db/memsvc memsvc import memory.jsonl --create-users",
  ]);
}
