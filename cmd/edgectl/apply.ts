/** `edgectl apply -f <file|dir|->`: create or update resources from manifests, as kubectl apply does. */
import type { Command } from "@commander-js/extra-typings";
import { addExamples, CliError, type Io, outputOption, printResult } from "../../internal/cli/mod.ts";
import type { KubeObject, Manifest } from "../../internal/k8s/mod.ts";
import { applyObject, objectRef } from "../../internal/k8s/resources.ts";
import { listDocument, withoutManagedFields } from "../../internal/k8s/table.ts";
import { collect, OUTPUT_ENV, useKubeOptions, withSession } from "./flags.ts";
import { FIELD_MANAGER, readNamedManifests } from "../../internal/edgeproxy/objects.ts";

export function registerApply(program: Command, io: Io) {
  const command = program
    .command("apply")
    .summary("Create or update resources from manifest files, directories or stdin")
    .description(
      "Create or update resources from YAML or JSON manifests: files, directories (their .yaml, .yml " +
        "and .json files) or - for stdin; a file may hold several documents. Without --server-side, " +
        "updates are three-way merges like kubectl's client-side apply. Prints one line per object: " +
        "created, configured, unchanged or serverside-applied.",
    )
    .option(
      "-f, --filename <path>",
      "Manifest file, directory or - for stdin (repeatable)",
      collect,
      [] as string[],
    )
    .option("--server-side", "Apply on the server (server-side apply, field manager edgectl)", false)
    .option("--force-conflicts", "With --server-side: take over fields other managers own", false)
    .addOption(outputOption({ env: OUTPUT_ENV }))
    .action(async (flags, cmd) => {
      if (flags.filename.length === 0) cmd.error("-f/--filename is required");
      if (flags.forceConflicts && !flags.serverSide) cmd.error("--force-conflicts requires --server-side");
      const manifests = await readNamedManifests(flags.filename);
      await withSession(cmd, async ({ client, namespace }) => {
        const applied: KubeObject[] = [];
        const errors: unknown[] = [];
        for (const m of manifests) {
          try {
            const result = await applyObject(client, m.object, {
              fieldManager: FIELD_MANAGER,
              serverSide: flags.serverSide,
              force: flags.forceConflicts,
              namespace,
            });
            applied.push(withoutManagedFields(result.object));
            if (flags.output === "table") {
              io.stdout.write(`${objectRef(result.resource, m.object.metadata.name)} ${result.action}\n`);
            }
          } catch (err) {
            errors.push(err);
            io.stderr.write(
              `error: ${describeSource(m)}: ${err instanceof Error ? err.message : String(err)}\n`,
            );
          }
        }
        if (flags.output !== "table") printResult(io, listDocument(applied), flags.output, () => "");
        if (errors.length) {
          throw new CliError(`${errors.length} of ${manifests.length} objects were not applied`);
        }
      });
    });
  useKubeOptions(command, { namespace: true });
  addExamples(command, [
    "# Apply every manifest of a directory\nedgectl apply -f manifests/",
    "# Apply two files with server-side apply\nedgectl apply -f gateway.yaml -f routes.yaml --server-side",
    "# Apply from stdin\ncat route.yaml | edgectl apply -f -",
  ]);
}

function describeSource(m: Manifest): string {
  return `${m.source} (document ${m.index})`;
}
