import type { Command } from "@commander-js/extra-typings";
import { addExamples, envOption, type Io, outputOption } from "../../internal/cli/mod.ts";

/** `vault export`: a user's vault as a zip that Obsidian opens as it is, through a server or offline. */
export function registerExport(program: Command, io: Io): void {
  const command = program
    .command("export")
    .summary("Export a vault as a zip Obsidian opens as it is")
    .description(
      "Write a user's vault as a zip: every note, canvas and attachment at its path and the .obsidian/ " +
        "settings an import kept aside, with their modification times (no trash). Unzipped, it is a folder " +
        "Obsidian opens as a vault; `vault import` takes it back byte for byte. Through a running server: " +
        "--server (or VAULT_URL) and an API key in VAULT_TOKEN (a read key is enough). Offline, with the server " +
        "stopped: --user and the DATABASE_URL and VAULT_DATA_DIR `vault serve` uses.",
    )
    .argument("[file]", "where to write the zip, or - for stdout (default: vault-<date>.zip)")
    .option(
      "--server <url>",
      "the vault to export (default: VAULT_URL); the API key is read from VAULT_TOKEN",
    )
    .option("--user <email>", "offline: whose vault to export")
    .addOption(
      envOption("--data-dir <dir>", "offline: the notes folder (as for vault serve)", "VAULT_DATA_DIR"),
    )
    .addOption(outputOption())
    // The work, and the database and zip modules it needs, load only when the command runs.
    .action(async (file, flags) => (await import("./export_run.ts")).runExport(file, flags, io));
  addExamples(command, [
    "# From a running server\nVAULT_URL=https://vault.example.com VAULT_TOKEN=vault_... vault export my-vault.zip",
    "# Offline, the server stopped\nDATABASE_URL=./vault-db vault export --user alice@example.com --data-dir /srv/vault/notes",
  ]);
}
