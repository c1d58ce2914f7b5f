/** gitsync-manager: the Kubernetes GitOps controller binary. */
import { createProgram, type Io, processIo, run } from "../../internal/cli/mod.ts";

export function buildProgram(io: Io = processIo) {
  return createProgram({
    name: "gitsync-manager",
    summary:
      "gitsync-manager is a Kubernetes GitOps controller. It renders manifests from Git or a Helm chart " +
      "repository (plain YAML, Kustomize and Helm, all in process), plans every Revision with a digest, applies " +
      "approved plans in ordered waves with Server-Side Apply, prunes, checks health and diagnoses failures. " +
      "It also serves the admission webhook, the Git push receiver and a read-only web console.",
    examples: [
      "# Print the version\ngitsync-manager version",
      "# Print it as YAML\ngitsync-manager version -o yaml",
    ],
    docs: "README.md in the source repository",
    io,
  });
}

if (import.meta.main) await run(buildProgram());
