/** `gitsync repos`: the Repositories of a namespace (or all), with the commit last fetched. */
import type { Command } from "@commander-js/extra-typings";
import { addExamples, type Io } from "../../internal/cli/mod.ts";
import { formatAge } from "../../internal/k8s/table.ts";
import { redact } from "../../controller/gitsync/redact.ts";
import { listsAll } from "./kube.ts";
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
    );
  listsAll<Repository>(command, io, "repositories", {
    columns: {
      headers: ["url", "revision", "commit", "fetched"],
      cells: (r, now) => [
        redact(r.spec.git.url),
        r.spec.git.revision ?? "main",
        shortCommit(r.status?.artifact?.revision),
        r.status?.artifact?.fetchedAt ? formatAge(r.status.artifact.fetchedAt, now) : undefined,
      ],
    },
    wide: {
      headers: ["poll", "credentials", "discovered"],
      cells: (r) => {
        const discovered = condition(r, "Discovered");
        return [
          r.spec.pollInterval ?? "5m",
          r.spec.git.auth?.secretRef?.name,
          discovered ? `${discovered.status} ${discovered.reason ?? ""}`.trim() : undefined,
        ];
      },
    },
  });
  addExamples(command, [
    "# The Repositories of the current namespace\ngitsync repos",
    "# Of every namespace, as JSON\ngitsync repos -A -o json",
  ]);
}
