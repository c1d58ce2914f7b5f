/**
 * `gitsync suspend|resume <application>`: spec.suspend. A suspended Application makes no new Revision,
 * and its Revision does not move (no plan, rollout step, drift check or self-heal); resuming continues
 * the rollout where it stopped.
 */
import type { Command } from "@commander-js/extra-typings";
import { addExamples, type Io, outputOption, printResult } from "../../internal/cli/mod.ts";
import { OUTPUT_ENV, withSession } from "./kube.ts";
import { getApplication, mergePatch } from "../../controller/gitsync/client/mod.ts";

export function registerSuspendResume(program: Command, io: Io) {
  for (const [verb, suspend] of [["suspend", true], ["resume", false]] as const) {
    const command = program
      .command(verb)
      .summary(
        suspend
          ? "Stop reconciling an Application: no new Revision, the rollout holds where it is"
          : "Reconcile a suspended Application again; its rollout continues where it stopped",
      )
      .description(
        suspend
          ? "Set spec.suspend: the controller makes no new Revision for the Application and its Revision does " +
            "not move (no plan, rollout step, drift check or self-heal) until `gitsync resume`. Objects already " +
            "applied stay as they are. Needs permission to patch Applications."
          : "Clear spec.suspend: the controller picks the Application up again, planning the newest commit and " +
            "continuing a rollout from the group where it stopped. Needs permission to patch Applications.",
      )
      .argument("<application>", "Application name")
      .addOption(outputOption({ env: OUTPUT_ENV }))
      .action(async (name, flags, cmd) => {
        await withSession(cmd, async ({ client, namespace }) => {
          await getApplication(client, namespace, name);
          await mergePatch(client, "applications", namespace, name, {
            spec: { suspend: suspend ? true : null },
          });
          printResult(
            io,
            { application: name, namespace, suspended: suspend },
            flags.output,
            () => `Application ${namespace}/${name} ${suspend ? "suspended" : "resumed"}`,
          );
        });
      });
    addExamples(command, [`# ${suspend ? "Hold" : "Release"} Application web\ngitsync ${verb} web -n shop`]);
  }
}
