/** `gitsync repos`: the Repositories of a namespace (or all), with the commit last fetched. */
import type { Command } from "@commander-js/extra-typings";
import { addExamples, type Io, printResult, wideOutputOption } from "../../internal/cli/mod.ts";
import { formatAge, listDocument } from "../../internal/k8s/table.ts";
import { redact } from "../../controller/gitsync/redact.ts";
import { OUTPUT_ENV, withSession } from "./kube.ts";
import { listAll } from "../../controller/gitsync/client/mod.ts";
import { condition, shortCommit } from "../../controller/gitsync/views/text.ts";
import type { Repository } from "../../controller/gitsync/api/mod.ts";

export function registerRepos(program: Command, io: Io) {
  const command = program
    .command("repos")
    .summary("List Repositories: URL, revision, the commit last fetched, readiness")
    .description(
      "List the Repositories of the namespace (-n) or of every namespace (-A): their Git URL (credentials " +
        "never shown), the branch, tag or commit they follow, the commit last fetched and when, and their Ready " +
        "condition with its reason.",
    )
    .option("-A, --all-namespaces", "List the Repositories of every namespace", false)
    .addOption(wideOutputOption({ env: OUTPUT_ENV }))
    .action(async (flags, cmd) => {
      await withSession(cmd, async ({ client, namespace }) => {
        const repos = await listAll<Repository>(
          client,
          "repositories",
          "Repository",
          flags.allNamespaces ? undefined : namespace,
        );
        const now = new Date();
        printResult(io, listDocument(repos), flags.output, {
          headers: [
            ...(flags.allNamespaces ? ["namespace"] : []),
            "name",
            "url",
            "revision",
            "commit",
            "fetched",
            "ready",
            "reason",
            "age",
          ],
          rows: () =>
            repos.map((r) => {
              const ready = condition(r, "Ready");
              const artifact = r.status?.artifact;
              return [
                ...(flags.allNamespaces ? [r.metadata!.namespace] : []),
                r.metadata!.name,
                redact(r.spec.git.url),
                r.spec.git.revision ?? "main",
                shortCommit(artifact?.revision),
                artifact?.fetchedAt ? formatAge(artifact.fetchedAt, now) : undefined,
                ready?.status ?? "Unknown",
                ready?.reason,
                formatAge(r.metadata?.creationTimestamp, now),
              ];
            }),
          wide: {
            headers: ["poll", "credentials", "discovered", "message"],
            rows: () =>
              repos.map((r) => {
                const discovered = condition(r, "Discovered");
                return [
                  r.spec.pollInterval ?? "5m",
                  r.spec.git.auth?.secretRef?.name,
                  discovered ? `${discovered.status} ${discovered.reason ?? ""}`.trim() : undefined,
                  condition(r, "Ready")?.message,
                ];
              }),
          },
          empty: flags.allNamespaces
            ? "No Repositories found"
            : `No Repositories found in ${namespace} namespace.`,
        });
      });
    });
  addExamples(command, [
    "# The Repositories of the current namespace\ngitsync repos",
    "# Of every namespace, as JSON\ngitsync repos -A -o json",
  ]);
}
