/**
 * `gitsync get <application>` (alias `status`): one Application in full — source, sync settings, the
 * desired and deployed Revisions with their phases, the plan waiting for approval, the failure, and every
 * condition — the first thing to run when something looks wrong.
 */
import type { Command } from "@commander-js/extra-typings";
import { addExamples, type Io } from "../../internal/cli/mod.ts";
import { withoutManagedFields } from "../../internal/k8s/table.ts";
import { APPLICATION_ARG, readsOne } from "./kube.ts";
import { getApplication, getRevision } from "../../controller/gitsync/client/mod.ts";
import { describeApplication } from "../../controller/gitsync/views/describe.ts";

export function registerGet(program: Command, io: Io) {
  const command = program
    .command("get")
    .alias("status")
    .summary("Show one Application: source, sync settings, desired and deployed Revision, conditions")
    .description(
      "Show an Application as a person reads it: where it renders from, how it syncs and as which service " +
        "account, the commit it follows, the Revision it wants deployed (its phase, and the plan digest when " +
        "it waits for approval, what its rollout waits for, or the failure and its root cause) and the one " +
        "deployed, then each condition with its reason and message. With -o json or yaml, the Application " +
        "object itself.",
    );
  readsOne(command, io, APPLICATION_ARG, async ({ client, namespace }, name) => {
    const app = await getApplication(client, namespace, name);
    const revision = async (n: string | undefined) =>
      n ? await getRevision(client, namespace, n).catch(() => undefined) : undefined;
    const desired = await revision(app.status?.desiredRevision);
    const deployed = app.status?.deployedRevision === app.status?.desiredRevision
      ? desired
      : await revision(app.status?.deployedRevision);
    const text = () => describeApplication(app, desired, deployed, new Date());
    return { document: withoutManagedFields(app), text };
  });
  addExamples(command, [
    "# How is Application web doing?\ngitsync get web -n shop",
    "# The same, as the object\ngitsync status web -n shop -o yaml",
  ]);
}
