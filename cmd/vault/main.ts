/** vault: the note vault service binary. */
import { createProgram, type Io, processIo, run } from "../../internal/cli/mod.ts";

export function buildProgram(io: Io = processIo) {
  return createProgram({
    name: "vault",
    summary:
      "vault is a multi-user note service: notes stored per user, with search, a link graph and backlinks, " +
      "sharing, canvases, daily notes and templates, plugins, collaborative editing, live events and an MCP " +
      "endpoint for AI agent hosts.",
    examples: [
      "# Print the version\nvault version",
      "# Print it as JSON\nvault version -o json",
    ],
    docs: "README.md in the source repository",
    io,
  });
}

if (import.meta.main) await run(buildProgram());
