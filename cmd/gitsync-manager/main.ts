/** gitsync-manager: the Kubernetes GitOps controller binary. */
import { createProgram, type Io, processIo, run } from "../../internal/cli/mod.ts";
import { registerConsole } from "./console.ts";
import { registerInstallCrds } from "./install_crds.ts";
import { registerRender } from "./render.ts";
import { registerRun } from "./run.ts";

export function buildProgram(io: Io = processIo) {
  const program = createProgram({
    name: "gitsync-manager",
    summary:
      "gitsync-manager is a Kubernetes GitOps controller. It renders manifests from Git or a Helm chart " +
      "repository (plain YAML, Kustomize and Helm, all in process), plans every Revision with a digest, applies " +
      "approved plans in ordered waves with Server-Side Apply, prunes, checks health and diagnoses failures. " +
      "It also serves the admission webhook, the Git push receiver and a read-only web console.",
    examples: [
      "# Run the controller with the current kubeconfig\ngitsync-manager run",
      "# Install or upgrade the CRDs\ngitsync-manager install-crds",
      "# Render a folder as the controller would (Kustomize or plain YAML), secrets redacted\n" +
      "gitsync-manager render --repository . --path deploy/prod",
      "# Serve the read-only web console (token sign-in)\nGITSYNC_CONSOLE_SESSION_KEY=$(openssl rand -hex 32) gitsync-manager console",
      "# Print the version as YAML\ngitsync-manager version -o yaml",
    ],
    docs: "docs/gitsync.md in the source repository",
    io,
  });
  registerInstallCrds(program, io);
  registerRun(program);
  registerRender(program, io);
  registerConsole(program);
  return program;
}

// Not awaited: the binaries are CommonJS bundles (scripts/build.ts), which have no top-level await.
if (import.meta.main) void run(buildProgram());
