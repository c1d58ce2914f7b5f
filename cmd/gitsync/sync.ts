/**
 * `gitsync sync <application>`: fetch the Application's Repository now instead of at its next poll
 * (the annotation sync.gitsync.io/reconcile-requested-at, as the push receiver sets it). A new commit then
 * becomes a Revision as usual: planned, and applied when the Application syncs automatically. With --wait,
 * waits until the Repository reports the fetch and prints the commit.
 */
import type { Command } from "@commander-js/extra-typings";
import { addExamples, CliError, type Io, outputOption, printResult } from "../../internal/cli/mod.ts";
import type { Repository } from "../../controller/gitsync/reconcilers/repository.ts";
import { collection, getApplication, getOne, OUTPUT_ENV, shortCommit, withSession } from "./kube.ts";
import { timeoutOption } from "./rollout_wait.ts";

export function registerSync(program: Command, io: Io) {
  const command = program
    .command("sync")
    .summary("Fetch an Application's Repository now, so a new commit is planned (and applied) at once")
    .description(
      "Ask the controller to fetch the Application's Repository now rather than at its next poll. A new " +
        "commit becomes a Revision as usual: planned, then applied when the Application syncs automatically " +
        "or once approved. With --wait, waits until the Repository reports the fetch and prints the commit " +
        "(exit 1 if the fetch failed or the timeout passed). Needs permission to patch Repositories.",
    )
    .argument("<application>", "Application name")
    .option("--wait", "Wait for the fetch; exit 1 if it fails", false)
    .option("--timeout <duration>", "How long --wait waits, e.g. 30s, 5m", "2m")
    .addOption(outputOption({ env: OUTPUT_ENV }))
    .action(async (name, flags, cmd) => {
      const timeoutMs = await timeoutOption(cmd, flags.timeout);
      const { RECONCILE_REQUESTED_AT } = await import("../../controller/gitsync/reconcilers/repository.ts");
      await withSession(cmd, async ({ client, namespace }) => {
        const app = await getApplication(client, namespace, name);
        const repoName = app.spec.source.repositoryRef.name;
        const requestedAt = new Date().toISOString();
        await client.request({
          method: "PATCH",
          path: `${collection("repositories", namespace)}/${repoName}`,
          contentType: "application/merge-patch+json",
          body: { metadata: { annotations: { [RECONCILE_REQUESTED_AT]: requestedAt } } },
        });
        const result: Record<string, unknown> = {
          application: name,
          namespace,
          repository: repoName,
          requestedAt,
        };
        if (!flags.wait) {
          printResult(io, result, flags.output, () => `Repository ${repoName} will be fetched now`);
          return;
        }
        const deadline = Date.now() + timeoutMs;
        for (;;) {
          const repo = await getOne<Repository>(client, "repositories", "Repository", namespace, repoName);
          if (repo.status?.lastHandledReconcileAt === requestedAt) {
            const ready = repo.status.conditions?.find((c) => c.type === "Ready");
            if (ready?.status !== "True") {
              throw new CliError(
                `fetching Repository ${repoName} failed: ${ready?.reason}: ${ready?.message}`,
              );
            }
            result.commit = repo.status.artifact?.revision;
            printResult(
              io,
              result,
              flags.output,
              () => `Repository ${repoName} is at ${shortCommit(result.commit as string)}`,
            );
            return;
          }
          if (Date.now() > deadline) {
            throw new CliError(`Repository ${repoName} was not fetched within ${flags.timeout}`);
          }
          await new Promise((r) => setTimeout(r, 500));
        }
      });
    });
  addExamples(command, [
    "# Pick up a commit just pushed, without waiting for the poll\ngitsync sync web -n shop",
    "# In CI, after pushing: fetch and print the commit\ngitsync sync web -n shop --wait",
  ]);
}
