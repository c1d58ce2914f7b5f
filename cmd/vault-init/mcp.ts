import type { Command } from "@commander-js/extra-typings";
import { findHost, renderEntry, type Transport } from "../../internal/agenthosts/mod.ts";
import { addExamples, CliError, envOption, type Io } from "../../internal/cli/mod.ts";
import { hostIds } from "../../internal/agenthosts/vault_init/install.ts";
import { readState, statePath } from "../../internal/agenthosts/vault_init/state.ts";
import { currentHostEnv } from "../../internal/agenthosts/mod.ts";
import {
  findVaultHost,
  parseServerUrl,
  transportFor,
  vaultServer,
} from "../../internal/agenthosts/vault_init/hosts.ts";

const PLACEHOLDER = "<API_KEY>";

/** `vault-init mcp [--host]`: the MCP snippet to paste by hand, with a key placeholder. */
export function registerMcp(program: Command, io: Io): void {
  const mcp = program
    .command("mcp")
    .summary("Print the vault's MCP entry to paste into a host's config by hand")
    .description(
      "Print the 'vault' MCP entry to paste by hand, with the placeholder " + PLACEHOLDER +
        " for an API key " +
        "(create one in the vault's settings). Without --host: the HTTP form, " +
        '{"mcpServers": {"vault": {"type": "http", "url": "<server>/api/mcp", "headers": {"Authorization": ' +
        '"Bearer <API_KEY>"}}}}, or with --transport stdio the form that starts the shim: command npx, args ' +
        "-y vault-mcp, env VAULT_URL and VAULT_TOKEN. With --host: that host's own file format and entry " +
        "shape, with the transport install would use. The server is --server, else the installed one.",
    )
    .option("--host <id>", `one host: ${hostIds()}`)
    .option("--transport <kind>", "http or stdio (default: the host's, http without --host)")
    .addOption(envOption("--server <url>", "vault server URL (default: the installed one)", "VAULT_SERVER"))
    .action(async (flags) => {
      const transport = flags.transport as Transport | undefined;
      if (transport !== undefined && transport !== "http" && transport !== "stdio") {
        throw new CliError(`--transport must be http or stdio, not '${flags.transport}'`, 2);
      }
      const v = flags.host === undefined ? undefined : findVaultHost(flags.host);
      if (flags.host !== undefined && !v) {
        throw new CliError(`unknown host '${flags.host}' (known: ${hostIds()})`, 2);
      }
      if (v && transport === "http" && v.preferred === "stdio") {
        throw new CliError(`vault-init wires ${v.host.name} through the stdio shim only`, 2);
      }
      const state = flags.server === undefined ? await readState(statePath(currentHostEnv())) : undefined;
      const raw = flags.server ?? state?.server;
      if (!raw) throw new CliError("no vault server: pass --server or set VAULT_SERVER", 2);
      const server = vaultServer(parseServerUrl(raw), PLACEHOLDER);
      // Without --host: Claude Code's HTTP shape, or the plain stdio shape most hosts share.
      const host = v?.host ?? findHost(transport === "stdio" ? "claude-desktop" : "claude-code")!;
      const chosen = transport ?? (v ? await transportFor(v) : "http");
      io.stdout.write(renderEntry(host, server, chosen));
    });
  addExamples(mcp, [
    "# The HTTP form for any host that speaks Streamable HTTP\nvault-init mcp --server https://vault.example.com",
    "# The stdio form, which starts the vault-mcp shim\nvault-init mcp --transport stdio",
    "# OpenCode's own shape (a command array, `environment`)\nvault-init mcp --host opencode",
  ]);
}
