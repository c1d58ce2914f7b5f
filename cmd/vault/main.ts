/** vault: the note vault service binary. Commands live beside this file, one per file. */
import { createProgram, type Io, processIo, run } from "../../internal/cli/mod.ts";
import { registerExport } from "./export.ts";
import { registerImport } from "./import.ts";
import { registerServe } from "./serve.ts";
import { SANDBOX_ARG } from "../../server/vault/plugins/protocol.ts";

export function buildProgram(io: Io = processIo) {
  const program = createProgram({
    name: "vault",
    summary:
      "vault is a multi-user note service: notes stored per user, with search, a link graph and backlinks, " +
      "sharing, canvases, daily notes and templates, plugins, collaborative editing, live events and an MCP " +
      "endpoint for AI agent hosts. `vault serve` runs it (port 7779 by default).",
    examples: [
      "# Run the service on the embedded database in ./vault-db\n" +
      "BETTER_AUTH_SECRET=$(openssl rand -hex 32) DATABASE_URL=./vault-db vault serve",
      "# Import an Obsidian vault into a running server (a read-write API key)\n" +
      "VAULT_URL=http://127.0.0.1:7779 VAULT_TOKEN=vault_... vault import ~/Documents/MyVault",
      "# Export it again as a zip Obsidian opens\nVAULT_URL=http://127.0.0.1:7779 VAULT_TOKEN=vault_... vault export vault.zip",
      "# Print the version\nvault version",
      "# Print it as JSON\nvault version -o json",
    ],
    docs: "README.md and docs/vault.md in the source repository",
    io,
  });
  registerServe(program);
  registerImport(program, io);
  registerExport(program, io);
  return program;
}

// Not awaited: the binaries are CommonJS bundles (scripts/build.ts), which have no top-level await.
if (import.meta.main) {
  // A plugin's sandbox process is this binary too (server/vault/plugins/plugin_process.ts).
  if (process.argv[2] === SANDBOX_ARG) {
    void import("../../server/vault/plugins/sandbox.ts").then(({ runPluginSandbox }) => runPluginSandbox());
  } else void run(buildProgram());
}
