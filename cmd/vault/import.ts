import type { Command } from "@commander-js/extra-typings";
import { addExamples, envOption, type Io, outputOption } from "../../internal/cli/mod.ts";

/** `vault import`: an existing vault (a folder or a zip) into a user's notes, through a server or offline. */
export function registerImport(program: Command, io: Io): void {
  const command = program
    .command("import")
    .summary("Import a vault (a folder or a zip): notes, canvases, attachments, .obsidian settings")
    .description(
      "Import an existing vault, an Obsidian vault folder as it is or a zip of one, into a user's notes. " +
        "Every note, canvas and attachment goes to its path; Obsidian's .obsidian/ folder is kept aside " +
        "(stored, never listed); symlinks, paths outside the vault, hidden files, names the vault cannot hold " +
        "and files over the limits are refused and listed with the reason. A file already there with the same " +
        "bytes is left alone, so running it again changes nothing; other content there is refused unless " +
        "--overwrite. Through a running server: --server (or VAULT_URL) and a read-write API key in VAULT_TOKEN. " +
        "Offline, with the server stopped: --user and the DATABASE_URL and VAULT_DATA_DIR `vault serve` uses.",
    )
    .argument("<source>", "a folder (an Obsidian vault) or a .zip file")
    .option(
      "--server <url>",
      "the vault to import into (default: VAULT_URL); the API key is read from VAULT_TOKEN",
    )
    .option("--user <email>", "offline: whose vault to import into")
    .addOption(
      envOption("--data-dir <dir>", "offline: the notes folder (as for vault serve)", "VAULT_DATA_DIR"),
    )
    .option("--dry-run", "report what would be imported; write nothing")
    .option("--overwrite", "replace files that exist with other content (default: refuse them)")
    .addOption(outputOption())
    // The work, and the database and zip modules it needs, load only when the command runs.
    .action(async (source, flags) => (await import("./import_run.ts")).runImport(source, flags, io));
  addExamples(command, [
    "# Into a running server (a read-write API key)\n" +
    "VAULT_TOKEN=vault_... vault import ~/Documents/MyVault --server https://vault.example.com",
    "# What would happen, as JSON\nVAULT_URL=http://127.0.0.1:7779 VAULT_TOKEN=vault_... vault import vault.zip --dry-run -o json",
    "# Offline, the server stopped: its database and notes folder\n" +
    "DATABASE_URL=./vault-db vault import vault.zip --user alice@example.com --data-dir /srv/vault/notes",
  ]);
}
