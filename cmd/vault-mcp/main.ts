/** vault-mcp: the stdio-to-HTTP MCP bridge for stdio-only agent hosts. */
import { createProgram, type Io, isMain, processIo, run } from "../../internal/cli/mod.ts";
import { registerServe } from "./serve.ts";

export function buildProgram(io: Io = processIo) {
  const program = createProgram({
    name: "vault-mcp",
    summary:
      "vault-mcp connects AI agent hosts that only speak MCP over stdio to a vault. It serves MCP on " +
      "stdin and stdout and forwards every JSON-RPC message to the vault's HTTP MCP endpoint (VAULT_URL/api/mcp) " +
      "with VAULT_TOKEN as the bearer token, keeping the MCP session across requests. Run without a command, " +
      "it serves (`vault-mcp serve`).",
    examples: [
      "# What an agent host runs\nVAULT_URL=https://vault.example.com VAULT_TOKEN=vault_... vault-mcp",
      "# An entry for Claude Desktop\n" +
      '{"command": "npx", "args": ["-y", "vault-mcp"], "env": {"VAULT_URL": "https://vault.example.com", ' +
      '"VAULT_TOKEN": "vault_..."}}',
      "# Print the version\nvault-mcp version",
    ],
    docs: "docs/vault-init.md in the source repository",
    io,
  });
  registerServe(program);
  return program;
}

// Not awaited, and import.meta only by its fields: the binaries are CommonJS bundles (scripts/build.ts).
if (isMain({ main: import.meta.main, url: import.meta.url })) void run(buildProgram());
