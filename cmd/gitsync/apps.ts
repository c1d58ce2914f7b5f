/** `gitsync apps`: the Applications of a namespace (or all), with what they want and what is deployed. */
import type { Command } from "@commander-js/extra-typings";
import { addExamples, type Io, printResult, wideOutputOption } from "../../internal/cli/mod.ts";
import { formatAge, listDocument } from "../../internal/k8s/table.ts";
import { OUTPUT_ENV, withSession } from "./kube.ts";
import { listAll } from "../../controller/gitsync/client/mod.ts";
import { condition, shortCommit } from "../../controller/gitsync/views/text.ts";
import { type Application, REPOSITORY_LABEL } from "../../controller/gitsync/api/mod.ts";

export function registerApps(program: Command, io: Io) {
  const command = program
    .command("apps")
    .summary("List Applications: source commit, desired and deployed Revision, readiness")
    .description(
      "List the Applications of the namespace (-n) or of every namespace (-A): the commit they follow, the " +
        "Revision they want deployed and the one that is, whether they sync automatically, and their Ready " +
        "condition with its reason.",
    )
    .option("-A, --all-namespaces", "List the Applications of every namespace", false)
    .addOption(wideOutputOption({ env: OUTPUT_ENV }))
    .action(async (flags, cmd) => {
      await withSession(cmd, async ({ client, namespace }) => {
        const apps = await listAll<Application>(
          client,
          "applications",
          "Application",
          flags.allNamespaces ? undefined : namespace,
        );
        const now = new Date();
        const headers = [
          ...(flags.allNamespaces ? ["namespace"] : []),
          "name",
          "sync",
          "source",
          "desired",
          "deployed",
          "ready",
          "reason",
          "age",
        ];
        printResult(io, listDocument(apps), flags.output, {
          headers,
          rows: () =>
            apps.map((a) => {
              const ready = condition(a, "Ready");
              return [
                ...(flags.allNamespaces ? [a.metadata!.namespace] : []),
                a.metadata!.name,
                a.spec.sync?.automatic ? "automatic" : "approval",
                shortCommit(a.status?.sourceRevision),
                a.status?.desiredRevision,
                a.status?.deployedRevision,
                ready?.status ?? "Unknown",
                ready?.reason,
                formatAge(a.metadata?.creationTimestamp, now),
              ];
            }),
          wide: {
            headers: ["path", "service account", "flags", "message"],
            rows: () =>
              apps.map((a) => [
                a.spec.source.path || ".",
                a.spec.serviceAccountName,
                [
                  a.spec.suspend ? "suspended" : "",
                  a.spec.sync?.selfHeal ? "self-heal" : "",
                  a.spec.sync?.prune === false ? "no-prune" : "",
                  a.metadata?.labels?.[REPOSITORY_LABEL] ? "discovered" : "",
                ].filter(Boolean).join(","),
                condition(a, "Ready")?.message,
              ]),
          },
          empty: flags.allNamespaces
            ? "No Applications found"
            : `No Applications found in ${namespace} namespace.`,
        });
      });
    });
  addExamples(command, [
    "# The Applications of the current namespace\ngitsync apps",
    "# Of namespace shop, as YAML\ngitsync apps -n shop -o yaml",
    "# Of every namespace\ngitsync apps -A",
    "# With path, service account, flags and the Ready message\ngitsync apps -o wide",
  ]);
}
