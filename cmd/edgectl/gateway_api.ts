/**
 * `edgectl gateway-api` (alias gwapi): the Kubernetes Gateway API objects the proxy implements
 * (GatewayClasses, Gateways, HTTPRoutes), read at the version the server prefers (discovery), and
 * `conformance`: the live state of the proxy's classes, or a ConformanceReport file checked and shown.
 */
import { readFile } from "node:fs/promises";
import type { Command } from "@commander-js/extra-typings";
import { parse as parseYaml } from "yaml";
import {
  addExamples,
  CliError,
  type Io,
  type OutputFormat,
  outputOption,
  printResult,
} from "../../internal/cli/mod.ts";
import type { ApiResource, KubeClient, KubeObject } from "../../internal/k8s/mod.ts";
import { discoveryFor } from "../../internal/k8s/discovery.ts";
import { kindPlural } from "../../internal/k8s/kind_plural.ts";
import { getObject, listEvents, listObjects } from "../../internal/k8s/resources.ts";
import { listDocument, withoutManagedFields } from "../../internal/k8s/table.ts";
import {
  type ConformanceReport,
  formatReport,
  validateReport,
} from "../../internal/edgeproxy/conformance_report.ts";
import { describeObject, type KubeEvent } from "../../internal/k8s/describe.ts";
import {
  DEFAULT_CONTROLLER,
  formatLiveConformance,
  GATEWAY_CLASS_COLUMNS,
  GATEWAY_COLUMNS,
  GATEWAY_GROUP,
  HTTPROUTE_COLUMNS,
  liveConformance,
} from "../../internal/edgeproxy/gateway_api_view.ts";
import { OUTPUT_ENV, useKubeOptions, withSession } from "./flags.ts";
import type { Column, ResourceType } from "../../internal/edgeproxy/resources.ts";
import { resourceTable } from "../../internal/edgeproxy/resource_table.ts";

const INSTALL_HINT = "install the Gateway API CRDs (v1.4.0, standard channel): kubectl apply -f " +
  "https://github.com/kubernetes-sigs/gateway-api/releases/download/v1.4.0/standard-install.yaml";

/** The served, preferred version of a Gateway API resource (discovery, refreshed once on a miss). */
export async function gatewayResource(client: KubeClient, plural: string): Promise<ApiResource> {
  const word = `${plural}.${GATEWAY_GROUP}`;
  const discovery = discoveryFor(client);
  const hit = (await discovery.mapper()).find(word) ?? (await discovery.mapper({ refresh: true })).find(word);
  if (!hit) throw new CliError(`the server does not serve ${word}: ${INSTALL_HINT}`);
  return hit;
}

async function list(
  client: KubeClient,
  plural: string,
  namespace: string | undefined,
): Promise<KubeObject[]> {
  const res = await gatewayResource(client, plural);
  const opts = !res.namespaced || namespace === undefined ? { allNamespaces: true } : { namespace };
  return (await listObjects(client, res, opts)).items;
}

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
          const objects = await list(client, spec.plural, namespace);
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

/**
 * `conformance` on `parent`: the seed's command table has it as `edgectl conformance`, and it is also
 * `edgectl gateway-api conformance`; both spellings are the same command.
 */
export function registerConformance(parent: Command, io: Io) {
  const conformance = parent
    .command("conformance")
    .summary("Check the proxy's GatewayClasses, Gateways and HTTPRoutes, or validate a ConformanceReport")
    .description(
      "Without -f: the GatewayClasses whose spec.controllerName is --controller-name, their conditions " +
        "and supported features, and the Gateways and HTTPRoutes that use them; exits 1 when no such " +
        "class is Accepted. With -f: validate a Gateway API ConformanceReport (YAML or JSON) and print its " +
        "profiles, results and features; exits 1 and names every problem when it is not valid.",
    )
    .option("-f, --filename <file>", "A ConformanceReport file to validate and show")
    .option("--controller-name <name>", "The proxy's Gateway API controller name", DEFAULT_CONTROLLER)
    .addOption(outputOption({ env: OUTPUT_ENV }))
    .action(async (flags, cmd) => {
      if (flags.filename !== undefined) {
        let doc: unknown;
        try {
          doc = parseYaml(await readFile(flags.filename, "utf8"));
        } catch (err) {
          const why = (err as { code?: string }).code === "ENOENT" ? "no such file" : (err as Error).message;
          throw new CliError(`${flags.filename}: ${why.split("\n")[0]}`);
        }
        const problems = validateReport(doc);
        if (problems.length > 0) {
          throw new CliError(
            `${flags.filename} is not a valid ConformanceReport:\n${
              problems.map((p) => `  ${p}`).join("\n")
            }`,
          );
        }
        printResult(io, doc as ConformanceReport, flags.output, formatReport);
        return;
      }
      await withSession(cmd, async ({ client }) => {
        const [classes, gateways, routes] = [
          await list(client, "gatewayclasses", undefined),
          await list(client, "gateways", undefined),
          await list(client, "httproutes", undefined),
        ];
        const live = liveConformance(flags.controllerName, classes, gateways, routes);
        printResult(io, live, flags.output, formatLiveConformance);
        if (!live.gatewayClasses.some((c) => c.accepted)) {
          throw new CliError(`no GatewayClass of controller ${flags.controllerName} is Accepted`);
        }
      });
    });
  useKubeOptions(conformance);
  addExamples(conformance, [
    "# Live conformance of the proxy's classes\nedgectl conformance",
    "# Validate and show a conformance report\nedgectl conformance -f conformance-report.yaml",
  ]);
}
