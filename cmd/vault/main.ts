/** vault: the note vault service binary. Commands live beside this file, one per file. */
import { createProgram, type Io, processIo, run } from "../../internal/cli/mod.ts";
import { ABOUT } from "../about.ts";
import { registerExport } from "./export.ts";
import { registerImport } from "./import.ts";
import { registerServe } from "./serve.ts";
import { SANDBOX_ARG } from "../../server/vault/plugins/protocol.ts";
import { registerInitdb } from "../../internal/db/initdb_child.ts";

export function buildProgram(io: Io = processIo) {
  return createProgram({
    ...ABOUT.vault,
    io,
    commands: [registerServe, registerImport, registerExport, registerInitdb],
  });
}

// Not awaited: the binaries are CommonJS bundles (scripts/build.ts), which have no top-level await.
if (import.meta.main) {
  // A plugin's sandbox process is this binary too (server/vault/plugins/plugin_process.ts).
  if (process.argv[2] === SANDBOX_ARG) {
    void import("../../server/vault/plugins/sandbox.ts").then(({ runPluginSandbox }) => runPluginSandbox());
  } else void run(buildProgram());
}
