/** `edgectl get <type> [name]`: kubectl's get for the edge proxy's resources. */
import type { Command } from "@commander-js/extra-typings";
import { addExamples, type Io, outputOption, printResult } from "../../internal/cli/mod.ts";
import { listDocument, withoutManagedFields } from "../../internal/k8s/table.ts";
import { OUTPUT_ENV, resourceTypeArgument, useKubeOptions, withSession } from "./flags.ts";
import { RESOURCE_TYPES } from "../../internal/edgeproxy/resources.ts";
import { resourceTable } from "../../internal/edgeproxy/resource_table.ts";
import { getByName, listByType } from "../../internal/edgeproxy/objects.ts";

/** "gateways (gateway, gw), routes (...)": the type words, for help texts. */
export const TYPE_HELP = RESOURCE_TYPES.map((t) =>
  t.aliases.length > 1 ? `${t.aliases[0]} (${t.aliases.slice(1).join(", ")})` : t.aliases[0]
).join(", ");

export function registerGet(program: Command, io: Io) {
  const command = program
    .command("get")
    .summary("List resources of a type, or show one, as a table, JSON or YAML")
    .description(
      "Display one resource, or list the resources of a type in a table, as JSON or as YAML. " +
        `Types: ${TYPE_HELP}. Lists of policies include WASM plugins (TYPE WASMPlugin).`,
    )
    .argument("<type>", "Resource type, e.g. gateways or gw")
    .argument("[name]", "Name of one resource")
    .option("-A, --all-namespaces", "List the resources of every namespace", false)
    .addOption(outputOption({ env: OUTPUT_ENV }))
    .action(async (word, name, flags, cmd) => {
      const type = resourceTypeArgument(cmd, word);
      if (name !== undefined && flags.allNamespaces) {
        cmd.error("a resource cannot be retrieved by name across all namespaces");
      }
      await withSession(cmd, async ({ client, namespace }) => {
        const now = new Date();
        if (name !== undefined) {
          const object = withoutManagedFields(await getByName(client, type, name, namespace));
          const table = resourceTable(type, [object], { allNamespaces: false, now });
          printResult(io, object, flags.output, { headers: table.headers, rows: () => table.rows });
          return;
        }
        const objects = await listByType(client, type, flags.allNamespaces ? undefined : namespace);
        const table = resourceTable(type, objects, { allNamespaces: flags.allNamespaces, now });
        printResult(io, listDocument(objects), flags.output, {
          headers: table.headers,
          rows: () => table.rows,
          empty: flags.allNamespaces ? "No resources found" : `No resources found in ${namespace} namespace.`,
        });
      });
    });
  useKubeOptions(command, { namespace: true });
  addExamples(command, [
    "# List the gateways of the current namespace\nedgectl get gateways",
    "# List the routes of every namespace\nedgectl get routes -A",
    "# Show one backend as YAML\nedgectl get be web -n shop -o yaml",
    "# List policies (WASM plugins included) as one JSON List document\nedgectl get pol -o json",
  ]);
}
