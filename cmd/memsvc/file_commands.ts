import type { Command } from "@commander-js/extra-typings";
import { addExamples, envOption, type Io } from "../../internal/cli/mod.ts";

/** What the three commands may be given; each declares only its own option. */
interface Flags {
  dataDir?: string;
  url?: string;
  createUsers?: boolean;
  force?: boolean;
}

/**
 * `memsvc import`, `backup` and `restore`: each reads or writes one file (or - for stdio) against the
 * database `memsvc serve` uses, takes one option of its own and --data-dir, and loads its work (and the
 * database it opens) only when it runs. One table, registered alike.
 */
const FILE_COMMANDS: {
  name: string;
  /** The one-line summary, then the description. */
  about: [string, string];
  /** The <file> argument's help, and the command's own option (flags, help). */
  file: string;
  option: [string, string];
  run: "runImport" | "runBackup" | "runRestore";
  examples: string[];
}[] = [
  {
    name: "import",
    about: [
      "Import a `memsvc export` file",
      "Load a `memsvc export` file into the database `memsvc serve` uses, in one transaction (a failure " +
      "changes nothing). Users are matched by email and must exist unless --create-users; projects by " +
      "owner and name; entries by (user, project, namespace, content): existing ones are left alone, so " +
      "importing a file twice changes nothing. New entries keep every field and are embedded with the " +
      "configured embedder. The embedded database must not be in use by a running server.",
    ],
    file: "export file (plain or gzip'd), or - for stdin",
    option: ["--create-users", "create missing users, without a password (an admin sets one later)"],
    run: "runImport",
    examples: [
      "# Import into the embedded database (server stopped)\nmemsvc import memory.jsonl",
      "# Into PostgreSQL, creating users that do not exist yet\n" +
      "MEMSVC_DATABASE_URL=postgres://memsvc@db/memsvc memsvc import memory.jsonl --create-users",
    ],
  },
  {
    name: "backup",
    about: [
      "Write a consistent backup of the whole database",
      "Write every table (users, sessions, tokens, projects, entries, links, vectors, metrics) as gzip'd " +
      "JSON Lines, read in one consistent snapshot, for `memsvc restore`. On PostgreSQL " +
      "(MEMSVC_DATABASE_URL) this works while servers run. A running server holds the embedded " +
      "database, so then pass --url to have that server write the backup (GET /v1/admin/backup) with " +
      "an admin session token in MEMSVC_TOKEN.",
    ],
    file: "backup file to write (.jsonl.gz), or - for stdout",
    option: ["--url <server>", "take the backup through this running memsvc server"],
    run: "runBackup",
    examples: [
      "# PostgreSQL, while the service runs\nMEMSVC_DATABASE_URL=postgres://memsvc@db/memsvc memsvc backup memsvc.jsonl.gz",
      "# Embedded database of a running server, with an admin session token\n" +
      "MEMSVC_TOKEN=ns_... memsvc backup memsvc.jsonl.gz --url http://127.0.0.1:7778",
    ],
  },
  {
    name: "restore",
    about: [
      "Restore a `memsvc backup` into an empty database",
      "Load a `memsvc backup` file into the database `memsvc serve` uses: applies migrations, then in one " +
      "transaction inserts every row with all its columns (ids, timestamps, password hashes, sessions, " +
      "vectors). Refuses a database that has users or memory entries unless --force, which replaces " +
      "its contents. The embedded database must not be in use by a running server.",
    ],
    file: "backup file (.jsonl.gz), or - for stdin",
    option: ["--force", "replace the contents of a database that is not empty"],
    run: "runRestore",
    examples: [
      "# Into a new embedded database\nmemsvc restore memsvc.jsonl.gz --data-dir ./restored",
      "# Replace what a PostgreSQL database holds\n" +
      "MEMSVC_DATABASE_URL=postgres://memsvc@db/memsvc memsvc restore memsvc.jsonl.gz --force",
    ],
  },
];

export function registerFileCommands(program: Command, io: Io): void {
  for (const { name, about: [summary, description], file, option, run, examples } of FILE_COMMANDS) {
    const command = program
      .command(name)
      .summary(summary)
      .description(description)
      .argument("<file>", file)
      .option(...option)
      .addOption(envOption("--data-dir <dir>", "embedded database directory", "MEMSVC_DATA_DIR"))
      .action(async (path, flags: Flags) =>
        (await import("../../server/memsvc/portability/commands.ts"))[run](path, flags, io)
      );
    addExamples(command, examples);
  }
}
