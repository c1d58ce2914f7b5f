/** `edgectl describe <type> <name>`: kubectl's describe layout, Events included. */
import type { Command } from "@commander-js/extra-typings";
import { addExamples, type Io } from "../../internal/cli/mod.ts";
import { listEvents } from "../../internal/k8s/resources.ts";
import { describeObject, type KubeEvent } from "../../internal/k8s/describe.ts";
import { resourceTypeArgument, useKubeOptions, withSession } from "./flags.ts";
import { getByName } from "../../internal/edgeproxy/objects.ts";

export function registerDescribe(program: Command, io: Io) {
  const command = program
    .command("describe")
    .summary("Show one resource in detail, with its events")
    .description(
      "Show one resource in detail: name, namespace, labels, annotations, API version, kind, metadata, " +
        "spec and status, then the events recorded about it.",
    )
    .argument("<type>", "Resource type, e.g. gateways or gw")
    .argument("<name>", "Name of the resource")
    .action(async (word, name, _flags, cmd) => {
      const type = resourceTypeArgument(cmd, word);
      await withSession(cmd, async ({ client, namespace }) => {
        const object = await getByName(client, type, name, namespace);
        // As kubectl does, a failure to read events leaves the section out rather than failing.
        const events = await listEvents(client, object).catch(() => undefined);
        io.stdout.write(describeObject(object, events as KubeEvent[] | undefined, new Date()));
      });
    });
  useKubeOptions(command, { namespace: true });
  addExamples(command, [
    "# Describe a gateway of the current namespace\nedgectl describe gateway main",
    "# Describe a route in another namespace\nedgectl describe rt web -n shop",
    "# Describe a federation member cluster (ProxyCluster)\nedgectl describe cluster eu-west -n edge-system",
  ]);
}
