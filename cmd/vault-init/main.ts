/** vault-init: the installer that wires AI agent hosts to a vault. */
import { createProgram, type Io, processIo, run } from "../../internal/cli/mod.ts";

export function buildProgram(io: Io = processIo) {
  return createProgram({
    name: "vault-init",
    summary:
      "vault-init wires AI agent hosts to a vault. It signs in to the vault server, mints an API key, " +
      "detects the agent hosts installed on this machine (macOS and Linux) and writes their MCP configuration, " +
      "keeping a backup of every file it changes.",
    examples: [
      "# Print the version\nvault-init version",
      "# Print it as JSON\nvault-init version -o json",
    ],
    docs: "README.md in the source repository",
    io,
  });
}

if (import.meta.main) await run(buildProgram());
