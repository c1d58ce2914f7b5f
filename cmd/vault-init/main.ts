/** vault-init: the installer that wires AI agent hosts to a vault. Commands live beside this file. */
import { createProgram, type Io, isMain, processIo, run } from "../../internal/cli/mod.ts";
import { registerDetect } from "./detect.ts";
import { registerInstall } from "./install.ts";
import { registerMcp } from "./mcp.ts";
import { registerStatus } from "./status.ts";
import { registerUninstall } from "./uninstall.ts";

export function buildProgram(io: Io = processIo) {
  const program = createProgram({
    name: "vault-init",
    summary:
      "vault-init wires AI agent hosts to a vault. It signs in to the vault server, mints an API key, " +
      "detects the agent hosts installed on this machine (macOS and Linux) and writes their MCP configuration, " +
      "keeping a backup of every file it changes. `install` is the default command.",
    examples: [
      "# Ask for the server, email and password, then wire every detected host\nvault-init",
      "# Unattended\nVAULT_EMAIL=ada@example.com VAULT_PASSWORD=... vault-init --server https://vault.example.com --yes",
      "# Which hosts are wired?\nvault-init status",
      "# Undo everything and revoke the key\nvault-init uninstall",
    ],
    docs: "docs/vault-init.md in the source repository",
    io,
  });
  registerInstall(program, io);
  registerUninstall(program, io);
  registerStatus(program, io);
  registerDetect(program, io);
  registerMcp(program, io);
  return program;
}

// Not awaited, and import.meta only by its fields: the binaries are CommonJS bundles (scripts/build.ts).
if (isMain({ main: import.meta.main, url: import.meta.url })) void run(buildProgram());
