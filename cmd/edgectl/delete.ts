/** `edgectl delete`: by type and name, by manifest file, or every object of some types with --all. */
import type { Command } from "@commander-js/extra-typings";
import { addExamples, CliError, type Io } from "../../internal/cli/mod.ts";
import type { ApiResource, KubeClient } from "../../internal/k8s/mod.ts";
import { discoveryFor } from "../../internal/k8s/discovery.ts";
import { isKubeApiError } from "../../internal/k8s/errors.ts";
import { deleteObject, listObjects } from "../../internal/k8s/resources.ts";
import { collect, resourceTypesArgument, useKubeOptions, withSession } from "./flags.ts";
import { apiResource, type NamedManifest, readNamedManifests } from "../../internal/edgeproxy/objects.ts";

const FORCE_WARNING =
  "Warning: Immediate deletion does not wait for confirmation that the running resource has " +
  "been terminated. The resource may continue to run on the cluster indefinitely.\n";

interface Target {
  resource: ApiResource;
  name: string;
  namespace: string;
}

export function registerDelete(program: Command, io: Io) {
  const command = program
    .command("delete")
    .summary("Delete resources by type and name, by manifest, or all of some types")
    .description(
      "Delete resources by type and name (several names, or comma-separated types like gateways,routes), " +
        "every resource of the given types in the namespace (--all), or the objects a manifest describes (-f).",
    )
    .argument("[type]", "Resource type or comma-separated types, e.g. gw or gateways,routes")
    .argument("[names...]", "Names of the resources")
    .option(
      "-f, --filename <path>",
      "Delete the objects of this manifest file, directory or - (repeatable)",
      collect,
      [] as string[],
    )
    .option("--all", "Delete every resource of the given types in the namespace", false)
    .option("--ignore-not-found", "Treat a resource that does not exist as deleted", false)
    .option("--force", "Delete immediately, without waiting for graceful termination (grace period 0)", false)
    .option("--grace-period <seconds>", "Seconds the resource has to terminate; -1 uses its default", "-1")
    .action(async (word, names, flags, cmd) => {
      if (!/^-?\d+$/.test(flags.gracePeriod)) {
        cmd.error(`--grace-period must be an integer, not "${flags.gracePeriod}"`);
      }
      let gracePeriod = Number(flags.gracePeriod);
      if (flags.filename.length > 0) {
        if (word !== undefined || flags.all) cmd.error("-f cannot be combined with a resource type or --all");
      } else {
        if (word === undefined) cmd.error("give a resource type and names, a type and --all, or -f <file>");
        if (flags.all && names.length > 0) cmd.error("give names or --all, not both");
        if (!flags.all && names.length === 0) {
          cmd.error(`no name given: edgectl delete ${word} <name>, or --all to delete every ${word}`);
        }
      }
      const types = word === undefined ? [] : resourceTypesArgument(cmd, word);
      // kubectl's rules: --force means grace period 0; 0 without --force means 1 (graceful, but quick).
      if (flags.force && gracePeriod < 0) gracePeriod = 0;
      if (gracePeriod === 0 && !flags.force) gracePeriod = 1;
      const manifests: NamedManifest[] = flags.filename.length > 0
        ? await readNamedManifests(flags.filename)
        : [];

      await withSession(cmd, async ({ client, namespace }) => {
        const targets: Target[] = [];
        for (const m of manifests) {
          const resource = await discoveryFor(client).forKind(m.object.apiVersion, m.object.kind);
          targets.push({
            resource,
            name: m.object.metadata.name,
            namespace: m.object.metadata.namespace || namespace,
          });
        }
        for (const type of types) {
          const resource = await apiResource(client, type.kind);
          const typeNames = flags.all
            ? (await listObjects(client, resource, { namespace })).items.map((o) => o.metadata!.name!)
            : names;
          targets.push(...typeNames.map((name) => ({ resource, name, namespace })));
        }
        if (targets.length === 0) {
          io.stderr.write("No resources found\n");
          return;
        }
        if (flags.force) io.stderr.write(FORCE_WARNING);
        await deleteAll(client, io, targets, {
          gracePeriod,
          force: flags.force,
          ignoreNotFound: flags.ignoreNotFound,
        });
      });
    });
  useKubeOptions(command, { namespace: true });
  addExamples(command, [
    "# Delete one gateway\nedgectl delete gateway main",
    "# Delete the objects a manifest created\nedgectl delete -f manifests/",
    "# Delete every gateway, route, backend and policy of a namespace\nedgectl delete gateways,routes,backends,policies --all -n shop",
    "# Delete a route immediately\nedgectl delete rt web --force --grace-period=0",
  ]);
}

async function deleteAll(
  client: KubeClient,
  io: Io,
  targets: readonly Target[],
  options: { gracePeriod: number; force: boolean; ignoreNotFound: boolean },
) {
  const errors: unknown[] = [];
  for (const t of targets) {
    try {
      await deleteObject(client, t.resource, t.name, {
        namespace: t.namespace,
        ...(options.gracePeriod >= 0 ? { gracePeriodSeconds: options.gracePeriod } : {}),
      });
      const what = t.resource.group
        ? `${t.resource.kind.toLowerCase()}.${t.resource.group}`
        : t.resource.kind.toLowerCase();
      io.stdout.write(`${what} "${t.name}" ${options.force ? "force deleted" : "deleted"}\n`);
    } catch (err) {
      if (options.ignoreNotFound && isKubeApiError(err, "NotFound")) continue;
      errors.push(err);
      if (targets.length > 1) io.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
    }
  }
  if (errors.length === 1 && targets.length === 1) throw errors[0];
  if (errors.length) throw new CliError(`${errors.length} of ${targets.length} resources were not deleted`);
}
