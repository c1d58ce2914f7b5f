/** gitsync: the command-line client for the gitsync controller. Commands live beside this file, one per file. */
import { createProgram, type Io, processIo, run } from "../../internal/cli/mod.ts";
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
  const program = createProgram({
    name: "gitsync",
    summary: "gitsync is the command-line client for the gitsync GitOps controller. It works with the " +
      "controller's Applications, Repositories and Revisions (API group sync.gitsync.io/v1alpha1) in the " +
      "Kubernetes cluster of your current kubeconfig context: list them, read a Revision's plan, approve " +
      "exactly that plan, and follow the rollout.",
    description:
      "It uses your kubeconfig like kubectl: --kubeconfig, else $KUBECONFIG, else ~/.kube/config; " +
      "--context or GITSYNC_CONTEXT picks a context, -n or GITSYNC_NAMESPACE a namespace. Output is a table, " +
      "JSON or YAML (-o, or GITSYNC_OUTPUT).",
    examples: [
      "# The Applications of namespace shop\ngitsync apps -n shop",
      "# Everything about Application web: Revisions, plan waiting, conditions\ngitsync get web -n shop",
      "# What the next rollout of Application web would change\ngitsync plan web -n shop",
      "# Approve exactly that plan and wait for the rollout\ngitsync approve web -n shop --digest sha256:… --wait",
      "# Who approved what, as JSON\ngitsync history web -n shop -o json",
      "# Back to the last known-good Revision\ngitsync rollback web -n shop --wait",
    ],
    docs: "docs/gitsync.md in the source repository",
    outputEnv: OUTPUT_ENV,
    io,
  });
  addGlobalOptions(program);
  registerApps(program, io);
  registerGet(program, io);
  registerRepos(program, io);
  registerPlan(program, io);
  registerRevision(program, io);
  registerHistory(program, io);
  registerLogs(program, io);
  registerDiagnose(program, io);
  registerGraph(program, io);
  registerApprove(program, io);
  registerSync(program, io);
  registerRetry(program, io);
  registerRollback(program, io);
  registerSuspendResume(program, io);
  return program;
}

// Not awaited: the binaries are CommonJS bundles (scripts/build.ts), which have no top-level await.
if (import.meta.main) void run(buildProgram());
