/**
 * `gitsync sync <application>`: fetch the Application's Repository now instead of at its next poll
 * (the annotation sync.gitsync.io/reconcile-requested-at, as the push receiver sets it). A new commit then
 * becomes a Revision as usual: planned, and applied when the Application syncs automatically. With --wait,
 * waits until the Repository reports the fetch, then follows the commit's Revision until it is planned and
 * waits for approval, or is Healthy (exit 0), or fails (exit 1 with the reason and root cause).
 */
import type { Command } from "@commander-js/extra-typings";
import { addExamples, type Io, printResult } from "../../internal/cli/mod.ts";
import { followRollout, followsRollout } from "./wait.ts";
import { RECONCILE_REQUESTED_AT } from "../../controller/gitsync/api/mod.ts";
import { annotate, revisionForCommit, waitForFetch } from "../../controller/gitsync/client/mod.ts";
import { shortCommit } from "../../controller/gitsync/views/text.ts";

export function registerSync(program: Command, io: Io) {
  const command = program
    .command("sync")
    .summary("Fetch an Application's Repository now, so a new commit is planned (and applied) at once")
    .description(
      "Ask the controller to fetch the Application's Repository now rather than at its next poll. A new " +
        "commit becomes a Revision as usual: planned, then applied when the Application syncs automatically " +
        "or once approved. With --wait, waits until the Repository reports the fetch, then follows the " +
        "commit's Revision: exit 0 once its plan waits for approval (the digest printed) or it is Healthy, " +
        "exit 1 as soon as the fetch or the Revision fails (with the reason and root cause) or the timeout " +
        "passes. A suspended Application takes no commit: --wait ends after the fetch. Needs permission to " +
        "patch Repositories.",
    );
  followsRollout(command, async ({ client, namespace, name, app }, flags, timeoutMs) => {
    const repoName = app.spec.source.repositoryRef.name;
    const requestedAt = new Date().toISOString();
    await annotate(client, "repositories", namespace, repoName, {
      [RECONCILE_REQUESTED_AT]: requestedAt,
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
    const wait = { deadline: Date.now() + timeoutMs, timeout: flags.timeout };
    const { commit } = await waitForFetch(client, namespace, repoName, requestedAt, wait);
    result.commit = commit;
    const fetched = `Repository ${repoName} is at ${shortCommit(commit)}`;
    if (app.spec.suspend) {
      const message = `${fetched}; Application ${name} is suspended and takes no commit until resumed`;
      printResult(io, result, flags.output, () => message);
      return;
    }
    io.stderr.write(`${fetched}\n`);
    const revision = await revisionForCommit(client, namespace, name, commit, wait);
    result.revision = revision;
    await followRollout(io, flags.output, result, {
      client,
      namespace,
      revision,
      timeoutMs: wait.deadline - Date.now(),
      expect: { approvalIsAnEnd: true },
    });
  });
  addExamples(command, [
    "# Pick up a commit just pushed, without waiting for the poll\ngitsync sync web -n shop",
    "# In CI, after pushing: fetch, and wait until the plan is ready (or, syncing automatically, deployed)\ngitsync sync web -n shop --wait",
  ]);
}
