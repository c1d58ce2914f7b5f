import { type Command, Option } from "@commander-js/extra-typings";
import { addExamples, envOption } from "../../internal/cli/mod.ts";

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `memsvc mcp`: the stdio MCP server that agent hosts start, bridged to memsvc's HTTP /mcp. */
export function registerMcp(program: Command): void {
  const mcp = program
    .command("mcp")
    .description(
      "Serve MCP over stdin and stdout for agent hosts that can only start local (stdio) MCP servers, " +
        "such as Claude Desktop, and forward every message to memsvc's HTTP MCP endpoint, " +
        "<MEMSVC_BASE_URL>/mcp, with the API token in MEMSVC_TOKEN. The host runs it; it is not meant to " +
        "be run by hand. A Claude Desktop entry: " +
        '{"command": "/path/to/memsvc", "args": ["mcp"], "env": {"MEMSVC_BASE_URL": "https://memsvc.example.com", ' +
        '"MEMSVC_TOKEN": "nm_..."}}. It exits 0 when the host closes stdin, after pending calls are answered. ' +
        "stdout carries only MCP messages; diagnostics go to stderr with --debug.",
    )
    .addOption(envOption("--url <url>", "memsvc's base URL; MCP is served at <url>/mcp", "MEMSVC_BASE_URL"))
    .addOption(
      new Option("--token-env <name>", "environment variable that holds the API token").default(
        "MEMSVC_TOKEN",
      ),
    )
    .addOption(new Option("--debug", "log what the bridge does to stderr (env: MEMSVC_MCP_DEBUG=1)"))
    .action(async (flags, command) => {
      if (!ENV_NAME.test(flags.tokenEnv)) {
        command.error(`--token-env: '${flags.tokenEnv}' is not a variable name`);
      }
      // Loaded here: `memsvc mcp` runs at every agent-host launch, but no other command needs the bridge.
      const [{ loadBridgeConfig }, { createLogger, silentLogger }, { runStdioBridge }] = await Promise.all([
        import("./mcp_bridge_config.ts"),
        import("../../internal/log/mod.ts"),
        import("../../internal/mcp/mod.ts"),
      ]);
      const { url, token, debug } = loadBridgeConfig(flags.tokenEnv, {
        ...process.env,
        ...(flags.url === undefined ? {} : { MEMSVC_BASE_URL: flags.url }),
      });
      const log = debug || flags.debug
        ? createLogger({ level: "debug", bindings: { service: "memsvc", component: "mcp" } })
        : silentLogger;
      await runStdioBridge({ url, token, log });
    });
  addExamples(mcp, [
    "# What an agent host runs (it sets the variables in the entry's env)\n" +
    "MEMSVC_BASE_URL=https://memsvc.example.com MEMSVC_TOKEN=nm_... memsvc mcp",
    "# Take the token from another variable, and log to stderr\nmemsvc mcp --token-env MEMSVC_WORK_TOKEN --debug",
  ]);
}
