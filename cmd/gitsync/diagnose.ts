/** `gitsync diagnose <application>`: the root causes the controller found for its Revision's latest failure. */
import type { Command } from "@commander-js/extra-typings";
import { addExamples, type Io, outputOption, printResult } from "../../internal/cli/mod.ts";
import { formatAge } from "../../internal/k8s/table.ts";
import type { Diagnosis, ObjectRef } from "../../controller/gitsync/diagnosis/diagnose.ts";
import { getApplication, OUTPUT_ENV, revisionOf, withSession } from "./kube.ts";

const step = (r: ObjectRef) => `${r.kind}/${r.name}`;

export function formatDiagnosis(revision: string, phase: string, d: Diagnosis | undefined): string {
  if (!d?.causes.length) return `Revision ${revision} (${phase}): nothing diagnosed`;
  const lines = [
    `Revision ${revision} (${phase}): ${d.causes.length} root cause${d.causes.length > 1 ? "s" : ""}, ` +
    `diagnosed ${formatAge(d.diagnosedAt)} ago`,
  ];
  for (const c of d.causes) {
    lines.push("", `${c.reason}  ${c.chain.map(step).join(" → ")}`, `  ${c.message}`);
  }
  return lines.join("\n");
}

export function registerDiagnose(program: Command, io: Io) {
  const command = program
    .command("diagnose")
    .summary("Show why an Application's rollout is stuck or failed: root causes and how they were found")
    .description(
      "Print the diagnosis gitsync-manager recorded on the Revision the Application wants deployed (or " +
        "--revision): each root cause (CrashLoopBackOff, ImagePullBackOff, MissingSecret, Unschedulable, a " +
        "failed Job, ...) with the chain from the managed object down to it and the redacted message.",
    )
    .argument("<application>", "Application name")
    .option("--revision <name>", "A Revision of the Application other than the one it wants deployed")
    .addOption(outputOption({ env: OUTPUT_ENV }))
    .action(async (name, flags, cmd) => {
      await withSession(cmd, async ({ client, namespace }) => {
        const rev = await revisionOf(client, await getApplication(client, namespace, name), flags.revision);
        const result = {
          application: name,
          namespace,
          revision: rev.metadata!.name!,
          phase: rev.status?.phase ?? "Pending",
          ...(rev.status?.diagnosis ? { diagnosis: rev.status.diagnosis } : {}),
        };
        printResult(io, result, flags.output, (r) => formatDiagnosis(r.revision, r.phase, r.diagnosis));
      });
    });
  addExamples(command, [
    "# Why is Application web not Healthy?\ngitsync diagnose web -n shop",
    "# The causal chains as JSON\ngitsync diagnose web -n shop -o json",
  ]);
}
