/** `edgectl install-crds`: applies the edgeproxy.io CRDs embedded in edgectl and waits until they are served. */
import type { Command } from "@commander-js/extra-typings";
import { addExamples, CliError, type Io, outputOption, printResult } from "../../internal/cli/mod.ts";
import { loadCrds } from "../../internal/edgeproxy/crds.ts";
import { OUTPUT_ENV, useKubeOptions, withSession } from "./flags.ts";
import { FIELD_MANAGER } from "../../internal/edgeproxy/objects.ts";

export function registerInstallCrds(program: Command, io: Io) {
  const command = program
    .command("install-crds")
    .summary("Install or upgrade the edgeproxy.io CRDs and wait until they are served")
    .description(
      "Create or update the edge proxy's CustomResourceDefinitions (API group edgeproxy.io/v1alpha1, " +
        "carried inside edgectl), wait until the API server serves each of them, and report per CRD " +
        "whether it was created, configured or unchanged.",
    )
    .option("--timeout <seconds>", "How long to wait for the CRDs to be established", "60")
    .addOption(outputOption({ env: OUTPUT_ENV }))
    .action(async (flags, cmd) => {
      if (!/^\d+$/.test(flags.timeout)) {
        cmd.error(`--timeout must be a number of seconds, not "${flags.timeout}"`);
      }
      const crds = await loadCrds();
      const { CrdsNotEstablishedError, installCrds } = await import("../../internal/k8s/crds.ts");
      await withSession(cmd, async ({ client }) => {
        let results;
        try {
          results = await installCrds(client, crds, {
            fieldManager: FIELD_MANAGER,
            timeoutMs: Number(flags.timeout) * 1000,
          });
        } catch (err) {
          if (err instanceof CrdsNotEstablishedError) throw new CliError(err.message);
          throw err;
        }
        printResult(io, { crds: results }, flags.output, {
          headers: ["name", "kind", "result", "established"],
          rows: (v) => v.crds.map((c) => [c.name, c.kind, c.action, c.established ? "True" : "False"]),
        });
      });
    });
  useKubeOptions(command);
  addExamples(command, [
    "# Install or upgrade the CRDs in the current cluster\nedgectl install-crds",
    "# Same, in another context, as JSON\nedgectl install-crds --context prod -o json",
  ]);
}
