/** vault-mcp: the stdio-to-HTTP MCP bridge for stdio-only agent hosts. */
import { createProgram, type Io, isMain, processIo, run } from "../../internal/cli/mod.ts";
import { ABOUT } from "../about.ts";
import { registerServe } from "./serve.ts";

export function buildProgram(io: Io = processIo) {
  return createProgram({
    ...ABOUT["vault-mcp"],
    io,
    commands: [registerServe],
  });
}

// Not awaited, and import.meta only by its fields: the binaries are CommonJS bundles (scripts/build.ts).
if (isMain({ main: import.meta.main, url: import.meta.url })) void run(buildProgram());
