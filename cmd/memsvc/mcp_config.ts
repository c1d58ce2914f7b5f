import type { Command } from "@commander-js/extra-typings";
import {
  buildEntry,
  currentHostEnv,
  HOSTS,
  locateConfig,
  type McpServer,
  renderEntry,
} from "../../internal/agenthosts/mod.ts";
import { addExamples, envOption, type Io, outputOption, printResult } from "../../internal/cli/mod.ts";
import {
  DEFAULT_URL,
  memsvcExecutable,
  memsvcServer,
  parseBaseUrl,
  parseHostIds,
} from "../../internal/agenthosts/memsvc/install.ts";
import { urlAlias } from "./flags.ts";

const PLACEHOLDER = "<API_TOKEN>";

/** `memsvc mcp-config`: print a host's memsvc entry for pasting by hand, with a token placeholder. */
export function registerMcpConfig(program: Command, io: Io): void {
  const mcpConfig = program
    .command("mcp-config")
    .summary("Print a host's memsvc MCP entry to paste by hand")
    .description(
      "Print the memsvc entry for one agent host (or every host) in that host's own format and shape, to " +
        `paste into its config by hand. The token is the placeholder ${PLACEHOLDER}: replace it with an API ` +
        "token from the dashboard's API Tokens page. Hosts that can only start local servers get a stdio " +
        "entry running `memsvc mcp` (the stdio bridge) from this binary's path.",
    )
    .option("--host <id>", `one host: ${HOSTS.map((h) => h.id).join(", ")}`)
    .addOption(envOption("--server <url>", `memsvc server URL (default ${DEFAULT_URL})`, "MEMSVC_BASE_URL"))
    .addOption(urlAlias())
    .option(
      "--token-env <name>",
      "read the token from this environment variable where the host's config can (Cursor, Codex, Kiro); " +
        `others keep ${PLACEHOLDER}`,
    )
    .addOption(outputOption())
    .action(async (flags) => {
      const hosts = flags.host === undefined ? HOSTS : parseHostIds(flags.host);
      const base = parseBaseUrl(flags.server ?? flags.url ?? DEFAULT_URL);
      const h = currentHostEnv();
      const placeholder = memsvcServer(base, PLACEHOLDER, memsvcExecutable() ?? "memsvc");
      const entries = await Promise.all(hosts.map(async (host) => {
        const server: McpServer = flags.tokenEnv && host.tokenFromEnv
          ? { ...placeholder, bearer: { env: flags.tokenEnv } }
          : placeholder;
        const path = (await locateConfig(host, h))?.path ?? host.locations(h)[0]!.path;
        const entry = buildEntry(host, server);
        return {
          host: host.id,
          name: host.name,
          path,
          format: host.format,
          entry,
          snippet: renderEntry(host, server),
        };
      }));
      printResult(
        io,
        { hosts: entries.map(({ snippet: _snippet, ...rest }) => rest) },
        flags.output,
        () => entries.map((e) => `# ${e.name} (${e.host}): ${e.path}\n${e.snippet}`).join("\n").trimEnd(),
      );
    });
  addExamples(mcpConfig, [
    "# The entry for Cursor's ~/.cursor/mcp.json\nmemsvc mcp-config --host cursor --server https://mem.example.com",
    "# Codex, reading the token from $MEMSVC_TOKEN\nmemsvc mcp-config --host codex --token-env MEMSVC_TOKEN",
    "# Every host, as JSON\nmemsvc mcp-config -o json",
  ]);
}
