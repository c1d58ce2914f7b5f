import type { Command } from "@commander-js/extra-typings";
import { addExamples } from "../../internal/cli/mod.ts";

/** `vault-mcp serve`, the default: what an agent host starts. */
export function registerServe(program: Command): void {
  const serve = program
    .command("serve", { isDefault: true })
    .summary("Serve MCP on stdin/stdout, bridged to the vault (default; what agent hosts run)")
    .description(
      "Serve MCP over stdin and stdout and forward every JSON-RPC message to <VAULT_URL>/api/mcp with " +
        "Authorization: Bearer <VAULT_TOKEN>. Nothing is sent before the initialize answer (and its session " +
        "id) is in; the mcp-session-id and the negotiated MCP-Protocol-Version go on every later request. " +
        "When the vault forgets the session (HTTP 404) a new one is opened by replaying the host's " +
        "initialize, and the request is sent again. Server notifications arrive over a GET stream, resumed " +
        "with Last-Event-ID after a break (backoff 0.5 s to 30 s; a server without one, 405, is not polled). " +
        "A failure (401: the key was refused; the vault unreachable) becomes the JSON-RPC error of the " +
        "request it hit. When the host closes stdin, pending requests finish, the session is ended with " +
        "DELETE and it exits 0. stdout carries only MCP messages; VAULT_DEBUG=1 logs JSON lines on stderr.",
    )
    .action(async () => {
      // Loaded here: the schema (zod) and the bridge are what this command runs, not what --help needs.
      const [{ loadShimConfig }, { createLogger, silentLogger }, { runStdioBridge }] = await Promise.all([
        import("./shim_config.ts"),
        import("../../internal/log/mod.ts"),
        import("../../internal/mcp/mod.ts"),
      ]);
      const config = loadShimConfig(process.env);
      const log = config.debug
        ? createLogger({ level: "debug", bindings: { service: "vault-mcp" } })
        : silentLogger;
      await runStdioBridge({ url: config.endpoint, token: config.token, log });
    });
  addExamples(serve, [
    "# What an agent host runs (the entry's env sets the variables)\n" +
    "VAULT_URL=https://vault.example.com VAULT_TOKEN=vault_... npx -y vault-mcp",
    "# With structured logs on stderr\nVAULT_URL=https://vault.example.com VAULT_TOKEN=vault_... VAULT_DEBUG=1 vault-mcp",
  ]);
}
