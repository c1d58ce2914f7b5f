/** `edgectl sdwan status|links|topology`: the SD-WAN overlay's WAN links (ProxyWANLink) and policies. */
import type { Command } from "@commander-js/extra-typings";
import { addExamples, type Io, outputOption, printResult } from "../../internal/cli/mod.ts";
import type { KubeClient, KubeObject } from "../../internal/k8s/mod.ts";
import { listDocument } from "../../internal/k8s/table.ts";
import { OUTPUT_ENV, useKubeOptions, withSession } from "./flags.ts";
import { formatSummary, formatTopology, summarize, topology } from "../../internal/edgeproxy/sdwan_view.ts";
import { resourceTypeOfKind } from "../../internal/edgeproxy/resources.ts";
import { resourceTable } from "../../internal/edgeproxy/resource_table.ts";
import { listByType } from "../../internal/edgeproxy/objects.ts";

/** Every object of an SD-WAN kind in one namespace, or in all with `namespace` undefined. */
function list(client: KubeClient, kind: string, namespace: string | undefined): Promise<KubeObject[]> {
  return listByType(client, resourceTypeOfKind(kind)!, namespace);
}

const allNamespacesOption = ["-A, --all-namespaces", "Every namespace, not only the selected one"] as const;

export function registerSdwan(program: Command, io: Io) {
  const sdwan = program
    .command("sdwan")
    .summary("Inspect the SD-WAN overlay: link quality, health and topology")
    .description(
      "Inspect the SD-WAN overlay the proxy's agents build over WAN links (ProxyWANLink) steered by " +
        "policies (ProxyWANPolicy). A link is unhealthy when its measured latency or loss breaks its SLA " +
        "(spec.sla), or when its agent reports it down.",
    );
  useKubeOptions(sdwan, { namespace: true });
  addExamples(sdwan, [
    "# A summary of every namespace's links\nedgectl sdwan status -A",
    "# The links of one namespace as a table\nedgectl sdwan links -n branch-offices",
    "# Sites and their links as a tree\nedgectl sdwan topology -A",
  ]);

  const status = sdwan
    .command("status")
    .summary("Summarize sites, links (healthy or not) and policies")
    .option(...allNamespacesOption, false)
    .addOption(outputOption({ env: OUTPUT_ENV }))
    .action(async (flags, cmd) => {
      await withSession(cmd, async ({ client, namespace }) => {
        const ns = flags.allNamespaces ? undefined : namespace;
        const links = await list(client, "ProxyWANLink", ns);
        const policies = await list(client, "ProxyWANPolicy", ns);
        printResult(io, summarize(links, policies), flags.output, formatSummary);
      });
    });
  addExamples(status, [
    "# Summary of the current namespace\nedgectl sdwan status",
    "# Of every namespace, as JSON\nedgectl sdwan status -A -o json",
  ]);

  const links = sdwan
    .command("links")
    .summary("List WAN links with their measured quality")
    .description(
      "List WAN links: NAMESPACE NAME SITE ROLE PROVIDER LATENCY LOSS HEALTHY AGE. -o json or yaml prints " +
        "one List document.",
    )
    .option(...allNamespacesOption, false)
    .addOption(outputOption({ env: OUTPUT_ENV }))
    .action(async (flags, cmd) => {
      await withSession(cmd, async ({ client, namespace }) => {
        const objects = await list(client, "ProxyWANLink", flags.allNamespaces ? undefined : namespace);
        const table = resourceTable(resourceTypeOfKind("ProxyWANLink")!, objects, {
          allNamespaces: true,
          now: new Date(),
        });
        printResult(io, listDocument(objects), flags.output, {
          headers: table.headers,
          rows: () => table.rows,
          empty: flags.allNamespaces ? "No resources found" : `No resources found in ${namespace} namespace.`,
        });
      });
    });
  addExamples(links, [
    "# Links of every namespace\nedgectl sdwan links -A",
    "# Links of one namespace as YAML\nedgectl sdwan links -n hq -o yaml",
  ]);

  const topo = sdwan
    .command("topology")
    .summary("Show sites and their links as a tree with health marks (✓ healthy, ✗ unhealthy, ? not probed)")
    .option(...allNamespacesOption, false)
    .addOption(outputOption({ env: OUTPUT_ENV }))
    .action(async (flags, cmd) => {
      await withSession(cmd, async ({ client, namespace }) => {
        const objects = await list(client, "ProxyWANLink", flags.allNamespaces ? undefined : namespace);
        const sites = topology(objects);
        printResult(io, { sites }, flags.output, (v) => {
          const n = v.sites.reduce((sum, s) => sum + s.links.length, 0);
          if (v.sites.length === 0) return "SD-WAN overlay: no links";
          return `SD-WAN overlay: ${v.sites.length} sites, ${n} links\n${formatTopology(v.sites)}`;
        });
      });
    });
  addExamples(topo, [
    "# The tree of the current namespace\nedgectl sdwan topology",
    "# As JSON, for scripts\nedgectl sdwan topology -A -o json",
  ]);
}
