/** `vault-init install` (the default command): its flags; the work is internal/agenthosts/vault_init/install.ts. */
import type { Command } from "@commander-js/extra-typings";
import { installChoices, withInstallFlags } from "../../internal/agenthosts/mod.ts";
import { addExamples, type Io } from "../../internal/cli/mod.ts";
import { INSTALLER, runInstall } from "../../internal/agenthosts/vault_init/install.ts";
import { KEEP_BACKUPS, parseHostIds, parseServerUrl } from "../../internal/agenthosts/vault_init/hosts.ts";

/** `vault-init install` (the default command). */
export function registerInstall(program: Command, io: Io): void {
  const command = program
    .command("install", { isDefault: true })
    .summary("Sign in, mint an API key and wire the agent hosts on this machine to a vault (default)")
    .description(
      "Connect the AI agent hosts on this machine to a vault. Asks for the server URL (or --server), signs " +
        "in with email and password, mints an API key named vault-init-<hostname>-<timestamp>, and adds a " +
        "'vault' MCP entry to each detected host: Claude Code, Cursor and Codex (0.66 or later) get the HTTP " +
        "form (<server>/api/mcp with the key as a bearer token); Claude Desktop, OpenCode, Cline, Continue, " +
        "Kilo Code and Roo Code (and older Codex) start the stdio shim with `npx -y vault-mcp`. Only that " +
        "entry is touched, comments and unknown keys stay, symlinked configs are written through, and each " +
        `changed file is backed up beside itself first (the ${KEEP_BACKUPS} newest vault-init backups are kept). ` +
        "A file that does not parse is left untouched and reported. What was written is recorded in " +
        "~/.config/vault-init/state.json (mode 0600; the key's id and prefix, never the key). Running it " +
        "again reuses the key and changes nothing that is already right. macOS and Linux only.",
    );
  const install = withInstallFlags(command, {
    ...INSTALLER,
    serverEnv: "VAULT_SERVER",
    serverHelp: "vault server URL; asked for on a terminal",
  })
    .option("--shim <path>", "stdio entries run this vault-mcp binary instead of `npx -y vault-mcp`")
    .action(async (flags) => {
      await runInstall({
        server: flags.server === undefined ? undefined : parseServerUrl(flags.server),
        hosts: flags.hosts === undefined ? undefined : parseHostIds(flags.hosts),
        shim: flags.shim,
        ...installChoices(flags),
      }, io);
    });
  addExamples(install, [
    "# Ask for the server, email and password, then wire every detected host\nvault-init",
    "# Unattended, only Claude Code and Cursor\n" +
    "VAULT_EMAIL=ada@example.com VAULT_PASSWORD=... \\\n" +
    "  vault-init install --server https://vault.example.com --hosts claude-code,cursor --yes",
    "# See what would change, as JSON\nvault-init install --server https://vault.example.com --dry-run -o json",
  ]);
}
