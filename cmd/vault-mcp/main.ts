/** vault-mcp: the stdio-to-HTTP MCP bridge for stdio-only agent hosts. */
import { createProgram, type Io, processIo, run } from "../../internal/cli/mod.ts";

export function buildProgram(io: Io = processIo) {
  return createProgram({
    name: "vault-mcp",
    summary:
      "vault-mcp connects AI agent hosts that only speak MCP over stdio to a vault. It serves MCP on " +
      "stdin and stdout and forwards every JSON-RPC message to the vault's HTTP MCP endpoint (VAULT_URL/api/mcp) " +
      "with VAULT_TOKEN as the bearer token, keeping the MCP session across requests.",
    examples: [
      "# Print the version\nvault-mcp version",
      "# Print it as JSON\nvault-mcp version -o json",
    ],
    docs: "README.md in the source repository",
    io,
  });
}

if (import.meta.main) await run(buildProgram());
