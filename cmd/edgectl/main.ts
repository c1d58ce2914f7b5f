/** edgectl: the kubectl-style CLI for the edge proxy. Commands live beside this file, one per file. */
import { createProgram, type Io, processIo, run } from "../../internal/cli/mod.ts";
import { ABOUT } from "../about.ts";
import { registerAgent } from "./agent.ts";
import { registerAgents } from "./agents.ts";
import { registerAnalyze } from "./analyze.ts";
import { registerApply } from "./apply.ts";
import { registerCache } from "./cache.ts";
import { registerCheck } from "./check.ts";
import { registerDelete } from "./delete.ts";
import { registerDescribe } from "./describe.ts";
import { registerFederation } from "./federation.ts";
import { registerGenerate } from "./generate.ts";
import { registerGatewayApi } from "./gateway_api.ts";
import { registerGet } from "./get.ts";
import { registerInstallCrds } from "./install_crds.ts";
import { registerLogs } from "./logs.ts";
import { registerLogsAccess } from "./logs_access.ts";
import { registerMetrics } from "./metrics.ts";
import { registerSdwan } from "./sdwan.ts";
import { registerTrace } from "./trace.ts";
import { addGlobalOptions, OUTPUT_ENV } from "./flags.ts";
import { registerVersion } from "./version.ts";
import { registerWeb } from "./web.ts";
import { registerConformance } from "./conformance.ts";

export function buildProgram(io: Io = processIo) {
  return createProgram({
    ...ABOUT.edgectl,
    outputEnv: OUTPUT_ENV,
    versionCommand: false,
    io,
    commands: [
      addGlobalOptions,
      registerVersion,
      registerInstallCrds,
      registerGet,
      registerDescribe,
      registerApply,
      registerDelete,
      registerLogs,
      registerLogsAccess,
      registerMetrics,
      registerSdwan,
      registerTrace,
      registerWeb,
      registerAgent,
      registerAgents,
      registerCache,
      registerFederation,
      registerGatewayApi,
      registerConformance,
      registerGenerate,
      registerAnalyze,
      registerCheck,
    ],
  });
}

// Not awaited: the binaries are CommonJS bundles (scripts/build.ts), which have no top-level await.
if (import.meta.main) void run(buildProgram());
