/** gitsync: the command-line client for the gitsync controller. */
import { createProgram, type Io, processIo, run } from "../../internal/cli/mod.ts";

export function buildProgram(io: Io = processIo) {
  return createProgram({
    name: "gitsync",
    summary: "gitsync is the command-line client for the gitsync GitOps controller. It works with the " +
      "controller's Applications, Repositories and Revisions (API group sync.gitsync.io/v1alpha1) in the " +
      "Kubernetes cluster of your current kubeconfig context.",
    examples: [
      "# Print the version\ngitsync version",
      "# Print it as JSON\ngitsync version -o json",
    ],
    docs: "README.md in the source repository",
    io,
  });
}

if (import.meta.main) await run(buildProgram());
