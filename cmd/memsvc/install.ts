/** `memsvc install`: its flags; the work is internal/agenthosts/memsvc/install.ts. */
import type { Command } from "@commander-js/extra-typings";
import { installChoices, withInstallFlags } from "../../internal/agenthosts/mod.ts";
import { addExamples, type Io } from "../../internal/cli/mod.ts";
import {
  DEFAULT_URL,
  INSTALLER,
  parseBaseUrl,
  parseHostIds,
  runInstall,
} from "../../internal/agenthosts/memsvc/install.ts";
import { urlAlias } from "./flags.ts";

/** `memsvc install`: sign in, mint an API token and add a memsvc entry to each agent host's MCP config. */
export function registerInstall(program: Command, io: Io): void {
  const command = program
    .command("install")
    .summary("Wire this machine's AI agent hosts to a memsvc server")
    .description(
      "Connect the AI agent hosts on this machine (Claude Code, Cursor, VS Code, Codex, ...) to a memsvc " +
        "server. Signs in, mints an API token labelled '<hostname> <time>', signs out, and adds a memsvc " +
        "entry to each detected host's MCP config: the HTTP form (<server>/mcp with the token in an " +
        "Authorization header) where the host accepts remote servers, else a stdio entry that runs this " +
        "binary as `memsvc mcp`. Only that entry is touched; each changed file is backed up first. What " +
        "was written is recorded in ~/.config/memsvc/install.json (token hash only). Running it again " +
        "reuses the token and changes nothing that is already right. The flags are vault-init's.",
    );
  const install = withInstallFlags(command, {
    ...INSTALLER,
    serverEnv: "MEMSVC_BASE_URL",
    serverHelp: `memsvc server URL (default ${DEFAULT_URL})`,
  })
    .addOption(urlAlias())
    .action(async (flags) => {
      const server = flags.server ?? flags.url;
      const options = {
        url: server === undefined ? undefined : parseBaseUrl(server),
        hosts: flags.hosts === undefined ? undefined : parseHostIds(flags.hosts),
        ...installChoices(flags),
      };
      await runInstall(options, io);
    });
  addExamples(install, [
    "# Ask for the server, email and password, then wire every detected host\nmemsvc install",
    "# Unattended: password from a secret store, only Claude Code and Cursor\n" +
    "pass show memsvc | memsvc install --server https://mem.example.com --email ada@example.com \\\n" +
    "  --password-stdin --hosts claude-code,cursor --yes",
    "# See what would change\nmemsvc install --dry-run",
  ]);
}
