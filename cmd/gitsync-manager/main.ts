/** gitsync-manager: the Kubernetes GitOps controller binary. */
import { createProgram, type Io, processIo, run } from "../../internal/cli/mod.ts";
import { ABOUT } from "../about.ts";
import { registerConsole } from "./console.ts";
import { registerInstallCrds } from "./install_crds.ts";
import { registerRender } from "./render.ts";
import { registerRun } from "./run.ts";

export function buildProgram(io: Io = processIo) {
  return createProgram({
    ...ABOUT["gitsync-manager"],
    io,
    commands: [registerInstallCrds, registerRun, registerRender, registerConsole],
  });
}

// Not awaited: the binaries are CommonJS bundles (scripts/build.ts), which have no top-level await.
if (import.meta.main) void run(buildProgram());
