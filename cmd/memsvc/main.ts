/** memsvc: the memory service binary. Commands live beside this file, one per file. */
import { createProgram, type Io, processIo, run } from "../../internal/cli/mod.ts";
import { INITDB_COMMAND } from "../../internal/db/initdb_child.ts";
import { registerBackup } from "./backup.ts";
import { registerDetect } from "./detect.ts";
import { registerExport } from "./export.ts";
import { registerImport } from "./import.ts";
import { registerInstall } from "./install.ts";
import { registerMcp } from "./mcp.ts";
import { registerMcpConfig } from "./mcp_config.ts";
import { registerMigrate } from "./migrate.ts";
import { registerRestore } from "./restore.ts";
import { registerServe } from "./serve.ts";
import { registerStatus } from "./status.ts";
import { registerUninstall } from "./uninstall.ts";

export function buildProgram(io: Io = processIo) {
  const program = createProgram({
    name: "memsvc",
    summary: "memsvc is a memory service for AI agents. It stores, searches, links and forgets memory " +
      "entries for each user, with optional shared projects, and serves them over a JSON HTTP API (/v1), " +
      "an MCP endpoint for AI agent hosts (/mcp) and an embedded dashboard (/admin). It listens on port " +
      "7778 by default and is configured through MEMSVC_* environment variables.",
    examples: [
      "# Start the service on the default port, 7778\nmemsvc serve",
      "# Start it on port 8080\nMEMSVC_PORT=8080 memsvc serve",
      "# Print the version as JSON\nmemsvc version -o json",
    ],
    docs: "README.md and docs/memsvc.md in the source repository",
    io,
  });
  registerServe(program);
  registerMcp(program);
  registerInstall(program, io);
  registerUninstall(program, io);
  registerStatus(program, io);
  registerDetect(program, io);
  registerMcpConfig(program, io);
  registerExport(program, io);
  registerImport(program, io);
  registerBackup(program, io);
  registerRestore(program, io);
  registerMigrate(program, io);
  // Not for users: `memsvc serve` runs this in a child process to create a new embedded database.
  program.command(INITDB_COMMAND, { hidden: true }).argument("<data-dir>").action(async (dataDir) => {
    const { initDataDir } = await import("../../internal/db/initdb_child.ts");
    await initDataDir(dataDir);
  });
  return program;
}

// Not awaited: the binaries are CommonJS bundles (scripts/build.ts), which have no top-level await.
if (import.meta.main) void run(buildProgram());
