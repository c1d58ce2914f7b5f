/** memsvc: the memory service binary. Commands live beside this file, one per file. */
import { createProgram, type Io, processIo, run } from "../../internal/cli/mod.ts";
import { ABOUT } from "../about.ts";
import { registerInitdb } from "../../internal/db/initdb_child.ts";
import { registerDetect } from "./detect.ts";
import { registerExport } from "./export.ts";
import { registerFileCommands } from "./file_commands.ts";
import { registerInstall } from "./install.ts";
import { registerMcp } from "./mcp.ts";
import { registerMcpConfig } from "./mcp_config.ts";
import { registerMigrate } from "./migrate.ts";
import { registerServe } from "./serve.ts";
import { registerStatus } from "./status.ts";
import { registerUninstall } from "./uninstall.ts";

export function buildProgram(io: Io = processIo) {
  return createProgram({
    ...ABOUT.memsvc,
    io,
    commands: [
      registerServe,
      registerMcp,
      registerInstall,
      registerUninstall,
      registerStatus,
      registerDetect,
      registerMcpConfig,
      registerExport,
      registerFileCommands,
      registerMigrate,
      registerInitdb,
    ],
  });
}

// Not awaited: the binaries are CommonJS bundles (scripts/build.ts), which have no top-level await.
if (import.meta.main) void run(buildProgram());
