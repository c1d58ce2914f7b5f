/**
 * `edgectl gateway-api` (alias gwapi): the Kubernetes Gateway API objects the proxy implements
 * (GatewayClasses, Gateways, HTTPRoutes), read at the version the server prefers (discovery), and
 * `conformance`: the live state of the proxy's classes, or a ConformanceReport file checked and shown.
 */
import type { Command } from "@commander-js/extra-typings";
import {
  addExamples,
  type Io,
  type OutputFormat,
  outputOption,
  printResult,
} from "../../internal/cli/mod.ts";
import { kindPlural } from "../../internal/k8s/kind_plural.ts";
import { getObject, listEvents } from "../../internal/k8s/resources.ts";
import { listDocument, withoutManagedFields } from "../../internal/k8s/table.ts";
import { describeObject, type KubeEvent } from "../../internal/k8s/describe.ts";
import {
  GATEWAY_CLASS_COLUMNS,
  GATEWAY_COLUMNS,
  HTTPROUTE_COLUMNS,
} from "../../internal/edgeproxy/gateway_api_view.ts";
import { OUTPUT_ENV, useKubeOptions, withSession } from "./flags.ts";
import type { Column, ResourceType } from "../../internal/edgeproxy/resources.ts";
import { resourceTable } from "../../internal/edgeproxy/resource_table.ts";
import { gatewayResource, listGatewayApi } from "../../internal/edgeproxy/gateway_api.ts";
import { registerConformance } from "./conformance.ts";

interface ListSpec {
  name: string;
  aliases: string[];
  plural: string;
  kind: string;
  columns: Column[];
  namespaced: boolean;
  examples: string[];
}

const LISTS: ListSpec[] = [
  {
    name: "gatewayclasses",
    aliases: ["gc", "gwc"],
    plural: "gatewayclasses",
    kind: "GatewayClass",
    columns: GATEWAY_CLASS_COLUMNS,
    namespaced: false,
    examples: ["# Every GatewayClass and whether its controller accepted it\nedgectl gateway-api gc"],
  },
  {
    name: "gateways",
    aliases: ["gw"],
    plural: "gateways",
    kind: "Gateway",
    columns: GATEWAY_COLUMNS,
    namespaced: true,
    examples: [
      "# Gateways of every namespace\nedgectl gateway-api gw -A",
      "# As YAML\nedgectl gwapi gateways -o yaml",
    ],
  },
  {
    name: "httproutes",
    aliases: ["hr"],
    plural: "httproutes",
    kind: "HTTPRoute",
    columns: HTTPROUTE_COLUMNS,
    namespaced: true,
    examples: ["# HTTPRoutes of namespace shop\nedgectl gateway-api hr -n shop"],
  },
];

export function registerGatewayApi(program: Command, io: Io) {
  const gwapi = program
    .command("gateway-api")
    .alias("gwapi")
    .summary("Inspect Gateway API classes, gateways and routes, and conformance")
    .description(
      "Inspect the Kubernetes Gateway API objects (gateway.networking.k8s.io) the proxy implements, " +
        "at the version the API server prefers, and check conformance: the acceptance and features of " +
        "the proxy's GatewayClasses, or a ConformanceReport file.",
    );
  addExamples(gwapi, [
    "# GatewayClasses\nedgectl gateway-api gatewayclasses",
    "# Gateways of all namespaces\nedgectl gwapi gw -A",
    "# Conformance of the proxy's classes\nedgectl gateway-api conformance",
  ]);

  for (const spec of LISTS) {
    const kinds = kindPlural(spec.kind, spec.plural);
    const base = gwapi
      .command(spec.name)
      .aliases(spec.aliases)
      .summary(`List ${kinds} (${[spec.name, ...spec.aliases].join(", ")})`)
      .argument("[name]", `Name of one ${spec.kind}`);
    // A cluster-scoped kind has no namespace to pick or span: no -n, no -A.
    const cmd = spec.namespaced ? base.option("-A, --all-namespaces", "Every namespace", false) : base;
    useKubeOptions(cmd, spec.namespaced ? { namespace: true } : {});
    cmd
      .addOption(outputOption({ env: OUTPUT_ENV }))
      .action(async (name, opts, command) => {
        const flags = opts as { allNamespaces?: boolean; output: OutputFormat };
        if (name !== undefined && flags.allNamespaces) {
          command.error("error: a resource cannot be retrieved by name across all namespaces");
        }
        await withSession(command, async (session) => {
          const { client } = session;
          const type = { columns: spec.columns } as unknown as ResourceType;
          const allNs = flags.allNamespaces === true;
          const namespace = spec.namespaced && !allNs ? session.namespace : undefined;
          const now = new Date();
          if (name !== undefined) {
            const res = await gatewayResource(client, spec.plural);
            const object = withoutManagedFields(
              await getObject(client, res, name, res.namespaced && namespace ? { namespace } : {}),
            );
            const table = resourceTable(type, [object], { allNamespaces: false, now });
            printResult(io, object, flags.output, { headers: table.headers, rows: () => table.rows });
            return;
          }
          const objects = await listGatewayApi(client, spec.plural, namespace);
          const table = resourceTable(type, objects, { allNamespaces: allNs, now });
          printResult(io, listDocument(objects), flags.output, {
            headers: table.headers,
            rows: () => table.rows,
            empty: namespace === undefined
              ? "No resources found"
              : `No resources found in ${namespace} namespace.`,
          });
        });
      });
    addExamples(cmd, spec.examples);
  }

  const describe = gwapi
    .command("describe-gateway")
    .summary("Show one Gateway in detail: listeners, addresses, conditions and events")
    .argument("<name>", "Gateway name")
    .action(async (name, _flags, cmd) => {
      await withSession(cmd, async ({ client, namespace }) => {
        const res = await gatewayResource(client, "gateways");
        const gateway = await getObject(client, res, name, { namespace });
        const events = await listEvents(client, gateway).catch(() => undefined);
        io.stdout.write(describeObject(gateway, events as KubeEvent[] | undefined, new Date()));
      });
    });
  useKubeOptions(describe, { namespace: true });
  addExamples(describe, [
    "# Describe gateway main of namespace shop\nedgectl gateway-api describe-gateway main -n shop",
  ]);

  registerConformance(gwapi, io);
}
