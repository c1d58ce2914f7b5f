/**
 * `gitsync diagnose <application>`: why its Revision is stuck or failed — the failure, what the rollout
 * waits for, and the root causes the controller found, each with its chain from the managed object down.
 */
import type { Command } from "@commander-js/extra-typings";
import { addExamples, type Io, outputOption, printResult } from "../../internal/cli/mod.ts";
import { OUTPUT_ENV, withSession } from "./kube.ts";
import { getApplication, revisionOf } from "../../controller/gitsync/client/mod.ts";
import { formatDiagnosis } from "../../controller/gitsync/views/diagnosis.ts";

export function registerDiagnose(program: Command, io: Io) {
  const command = program
    .command("diagnose")
    .summary(
      "Show why an Application's rollout is stuck or failed: the failure, root causes and how they were found",
    )
    .description(
      "Print what gitsync-manager recorded on the Revision the Application wants deployed (or --revision): " +
        "the failure (reason and message), what a rollout under way waits for, and each root cause " +
        "(CrashLoopBackOff, ImagePullBackOff, MissingSecret, Unschedulable, a failed Job, ...) with the chain " +
        "from the managed object down to it and the redacted message.",
    )
    .argument("<application>", "Application name")
    .option("--revision <name>", "A Revision of the Application other than the one it wants deployed")
    .addOption(outputOption({ env: OUTPUT_ENV }))
    .action(async (name, flags, cmd) => {
      await withSession(cmd, async ({ client, namespace }) => {
        const rev = await revisionOf(client, await getApplication(client, namespace, name), flags.revision);
        const st = rev.status;
        const waitingFor = st?.phase === "Applying" ? st.rollout?.waitingFor : undefined;
        const result = {
          application: name,
          namespace,
          revision: rev.metadata!.name!,
          phase: st?.phase ?? "Pending",
          ...(st?.failure ? { failure: st.failure } : {}),
          ...(waitingFor ? { waitingFor } : {}),
          ...(st?.diagnosis ? { diagnosis: st.diagnosis } : {}),
        };
        printResult(io, result, flags.output, formatDiagnosis);
      });
    });
  addExamples(command, [
    "# Why is Application web not Healthy?\ngitsync diagnose web -n shop",
    "# The causal chains as JSON\ngitsync diagnose web -n shop -o json",
  ]);
}
