/** `edgectl get <type> [name]`: kubectl's get for the edge proxy's resources. */
import type { Command } from "@commander-js/extra-typings";
import { addExamples, CliError, type Io, outputOption, printResult } from "../../internal/cli/mod.ts";
import type { KubeClient, KubeObject } from "../../internal/k8s/mod.ts";
import { listObjects } from "../../internal/k8s/resources.ts";
import { listDocument, withoutManagedFields } from "../../internal/k8s/table.ts";
import {
  apiResource,
  getByName,
  OUTPUT_ENV,
  resourceTypeArgument,
  useKubeOptions,
  withSession,
} from "./kube.ts";
import { RESOURCE_TYPES, type ResourceType } from "./resources.ts";
import { resourceTable } from "./table.ts";

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
        const objects = await listAll(client, type, flags.allNamespaces ? undefined : namespace);
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

/** The objects of a type in one namespace (or all, with `namespace` undefined), further kinds after. */
async function listAll(
  client: KubeClient,
  type: ResourceType,
  namespace: string | undefined,
): Promise<KubeObject[]> {
  const objects: KubeObject[] = [];
  for (const kind of [type.kind, ...(type.alsoLists ?? [])]) {
    let res;
    try {
      res = await apiResource(client, kind);
    } catch (err) {
      // A further kind whose CRD is missing is simply not listed.
      if (kind !== type.kind && err instanceof CliError) continue;
      throw err;
    }
    const list = await listObjects(
      client,
      res,
      namespace === undefined ? { allNamespaces: true } : { namespace },
    );
    objects.push(...list.items);
  }
  return objects;
}
