/** `edgectl install-crds`: applies the edgeproxy.io CRDs embedded in edgectl and waits until they are served. */
import type { Command } from "@commander-js/extra-typings";
import { addExamples, CliError, type Io, outputOption, printResult } from "../../internal/cli/mod.ts";
import {
  applyObject,
  discoveryFor,
  getObject,
  type KubeClient,
  type KubeObject,
} from "../../internal/k8s/mod.ts";
import { loadCrds } from "./crds.ts";
import { FIELD_MANAGER } from "./apply.ts";
import { OUTPUT_ENV, withSession } from "./kube.ts";

interface InstalledCrd {
  name: string;
  kind: string;
  action: string;
  established: boolean;
}

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
      await withSession(cmd, async ({ client }) => {
        const results: InstalledCrd[] = [];
        for (const crd of crds) {
          const r = await applyObject(client, crd, { fieldManager: FIELD_MANAGER });
          results.push({
            name: crd.metadata!.name!,
            kind: String((crd.spec as { names: { kind: string } }).names.kind),
            action: r.action,
            established: false,
          });
        }
        await waitEstablished(client, results, Number(flags.timeout) * 1000);
        printResult(io, { crds: results }, flags.output, {
          headers: ["name", "kind", "result", "established"],
          rows: (v) => v.crds.map((c) => [c.name, c.kind, c.action, c.established ? "True" : "False"]),
        });
      });
    });
  addExamples(command, [
    "# Install or upgrade the CRDs in the current cluster\nedgectl install-crds",
    "# Same, in another context, as JSON\nedgectl install-crds --context prod -o json",
  ]);
}

async function waitEstablished(client: KubeClient, crds: InstalledCrd[], timeoutMs: number) {
  const res = await discoveryFor(client).forKind("apiextensions.k8s.io/v1", "CustomResourceDefinition");
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    for (const crd of crds.filter((c) => !c.established)) {
      crd.established = isEstablished(await getObject(client, res, crd.name));
    }
    const waiting = crds.filter((c) => !c.established);
    if (waiting.length === 0) return;
    if (Date.now() >= deadline) {
      throw new CliError(
        `not established after ${timeoutMs / 1000} s: ${waiting.map((c) => c.name).join(", ")}`,
      );
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

function isEstablished(crd: KubeObject): boolean {
  const conditions = (crd.status as { conditions?: { type: string; status: string }[] } | undefined)
    ?.conditions;
  return conditions?.some((c) => c.type === "Established" && c.status === "True") ?? false;
}
