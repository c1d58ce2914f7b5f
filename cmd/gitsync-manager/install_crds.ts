/** `gitsync-manager install-crds`: applies the sync.gitsync.io CRDs it carries and waits until they are served. */
import type { Command } from "@commander-js/extra-typings";
import { addExamples, CliError, type Io, outputOption, printResult } from "../../internal/cli/mod.ts";
import { VERSION as TOOL_VERSION } from "../../internal/version/version.ts";

export function registerInstallCrds(program: Command, io: Io) {
  const command = program
    .command("install-crds")
    .summary("Install or upgrade the sync.gitsync.io CRDs and wait until they are served")
    .description(
      "Create or update gitsync's CustomResourceDefinitions (API group sync.gitsync.io/v1alpha1: Application, " +
        "Repository, Revision, ImagePolicy, NotificationSink, HealthCheck), carried inside gitsync-manager; wait " +
        "until the API server serves each of them, and report per CRD whether it was created, configured or " +
        "unchanged. Needs permission to create and update CustomResourceDefinitions.",
    )
    .option(
      "--kubeconfig <path>",
      "Kubeconfig file (default: $KUBECONFIG, then ~/.kube/config, then in-cluster)",
    )
    .option("--context <name>", "Kubeconfig context to use (default: current-context)")
    .option("--timeout <seconds>", "How long to wait for the CRDs to be established", "60")
    .addOption(outputOption({}))
    .action(async (flags, cmd) => {
      // The Kubernetes client and the CRD files load here, not at every start.
      const { CrdsNotEstablishedError, installCrds, KubeClient } = await import("../../internal/k8s/mod.ts");
      const { loadCrds } = await import("../../controller/gitsync/crds.ts");
      if (!/^\d+$/.test(flags.timeout)) {
        cmd.error(`--timeout must be a number of seconds, not "${flags.timeout}"`);
      }
      const crds = await loadCrds();
      const client = KubeClient.fromKubeconfig({
        ...(flags.kubeconfig ? { path: flags.kubeconfig } : {}),
        ...(flags.context ? { context: flags.context } : {}),
        userAgent: `gitsync-manager/${TOOL_VERSION}`,
      });
      try {
        const results = await installCrds(client, crds, {
          fieldManager: "gitsync-manager",
          timeoutMs: Number(flags.timeout) * 1000,
        });
        printResult(io, { crds: results }, flags.output, {
          headers: ["name", "kind", "result", "established"],
          rows: (v) => v.crds.map((c) => [c.name, c.kind, c.action, c.established ? "True" : "False"]),
        });
      } catch (err) {
        if (err instanceof CrdsNotEstablishedError) throw new CliError(err.message);
        throw err;
      } finally {
        client.close();
      }
    });
  addExamples(command, [
    "# Install or upgrade the CRDs in the current cluster\ngitsync-manager install-crds",
    "# In another context, as JSON\ngitsync-manager install-crds --context prod -o json",
  ]);
}
