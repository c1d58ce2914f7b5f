/** `gitsync apps`: the Applications of a namespace (or all), with what they want and what is deployed. */
import type { Command } from "@commander-js/extra-typings";
import { addExamples, type Io } from "../../internal/cli/mod.ts";
import { listsAll } from "./kube.ts";
import { shortCommit } from "../../controller/gitsync/views/text.ts";
import { type Application, REPOSITORY_LABEL } from "../../controller/gitsync/api/mod.ts";

export function registerApps(program: Command, io: Io) {
  const command = program
    .command("apps")
    .summary("List Applications: source commit, desired and deployed Revision, readiness")
    .description(
      "List the Applications of the namespace (-n) or of every namespace (-A): the commit they follow, the " +
        "Revision they want deployed and the one that is, whether they sync automatically, and their Ready " +
        "condition with its reason.",
    );
  listsAll<Application>(command, io, "applications", {
    columns: {
      headers: ["sync", "source", "desired", "deployed"],
      cells: (a) => [
        a.spec.sync?.automatic ? "automatic" : "approval",
        shortCommit(a.status?.sourceRevision),
        a.status?.desiredRevision,
        a.status?.deployedRevision,
      ],
    },
    wide: {
      headers: ["path", "service account", "flags"],
      cells: (a) => [
        a.spec.source.path || ".",
        a.spec.serviceAccountName,
        [
          a.spec.suspend ? "suspended" : "",
          a.spec.sync?.selfHeal ? "self-heal" : "",
          a.spec.sync?.prune === false ? "no-prune" : "",
          a.metadata?.labels?.[REPOSITORY_LABEL] ? "discovered" : "",
        ].filter(Boolean).join(","),
      ],
    },
  });
  addExamples(command, [
    "# The Applications of the current namespace\ngitsync apps",
    "# Of namespace shop, as YAML\ngitsync apps -n shop -o yaml",
    "# Of every namespace\ngitsync apps -A",
    "# With path, service account, flags and the Ready message\ngitsync apps -o wide",
  ]);
}
