/** vault-init: the installer that wires AI agent hosts to a vault. Commands live beside this file. */
import { createProgram, type Io, isMain, processIo, run } from "../../internal/cli/mod.ts";
import { ABOUT } from "../about.ts";
import { registerDetect } from "./detect.ts";
import { registerInstall } from "./install.ts";
import { registerMcp } from "./mcp.ts";
import { registerStatus } from "./status.ts";
import { registerUninstall } from "./uninstall.ts";

export function buildProgram(io: Io = processIo) {
  return createProgram({
    ...ABOUT["vault-init"],
    io,
    commands: [registerInstall, registerUninstall, registerStatus, registerDetect, registerMcp],
  });
}

// Not awaited, and import.meta only by its fields: the binaries are CommonJS bundles (scripts/build.ts).
if (isMain({ main: import.meta.main, url: import.meta.url })) void run(buildProgram());
