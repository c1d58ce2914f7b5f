/** gitsync: the command-line client for the gitsync controller. Commands live beside this file, one per file. */
import { createProgram, type Io, processIo, run } from "../../internal/cli/mod.ts";
import { ABOUT } from "../about.ts";
import { registerApps } from "./apps.ts";
import { registerApprove } from "./approve.ts";
import { registerDiagnose } from "./diagnose.ts";
import { registerGet } from "./get.ts";
import { registerGraph } from "./graph.ts";
import { registerHistory } from "./history.ts";
import { registerLogs } from "./logs.ts";
import { addGlobalOptions, OUTPUT_ENV } from "./kube.ts";
import { registerPlan } from "./plan.ts";
import { registerRepos } from "./repos.ts";
import { registerRetry } from "./retry.ts";
import { registerRevision } from "./revision.ts";
import { registerRollback } from "./rollback.ts";
import { registerSuspendResume } from "./suspend.ts";
import { registerSync } from "./sync.ts";

export function buildProgram(io: Io = processIo) {
  return createProgram({
    ...ABOUT.gitsync,
    outputEnv: OUTPUT_ENV,
    io,
    commands: [
      addGlobalOptions,
      registerApps,
      registerGet,
      registerRepos,
      registerPlan,
      registerRevision,
      registerHistory,
      registerLogs,
      registerDiagnose,
      registerGraph,
      registerApprove,
      registerSync,
      registerRetry,
      registerRollback,
      registerSuspendResume,
    ],
  });
}

// Not awaited: the binaries are CommonJS bundles (scripts/build.ts), which have no top-level await.
if (import.meta.main) void run(buildProgram());
