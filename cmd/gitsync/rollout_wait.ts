/** Following a rollout from the CLI: `approve --wait` and `rollback --wait`. */
import { CliError } from "../../internal/cli/mod.ts";
import type { CommandUnknownOpts } from "@commander-js/extra-typings";
import type { KubeClient } from "../../internal/k8s/mod.ts";
import type { Revision } from "../../controller/gitsync/reconcilers/revision.ts";
import { getRevision } from "./kube.ts";

/** Polls the Revision until Healthy or Failed, reporting each phase change. */
export async function waitForRollout(
  client: KubeClient,
  namespace: string,
  name: string,
  timeoutMs: number,
  progress: (line: string) => void,
): Promise<Revision> {
  const deadline = Date.now() + timeoutMs;
  let last = "";
  for (;;) {
    const rev = await getRevision(client, namespace, name);
    const phase = rev.status?.phase ?? "Pending";
    const running = (rev.status?.hooks ?? []).filter((h) => h.state === "Running").map((h) =>
      `${h.stage} hook ${h.name}`
    );
    const line = `${phase}${running.length ? ` (${running.join(", ")})` : ""}`;
    if (line !== last) progress(`  ${new Date().toISOString().slice(11, 19)} ${line}`);
    last = line;
    if (phase === "Healthy" || phase === "Failed") return rev;
    if (Date.now() > deadline) {
      throw new CliError(`Revision ${name} is still ${phase} after ${timeoutMs / 1000} s`);
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/** One line on how the rollout ended. */
export function outcome(rev: Revision): string {
  if (rev.status?.phase === "Healthy") return `Revision ${rev.metadata!.name} is Healthy`;
  const f = rev.status?.failure;
  return `Revision ${rev.metadata!.name} failed${f ? `: ${f.reason}: ${f.message}` : ""}`;
}

/** --timeout in milliseconds; anything but a duration like 90s or 10m is a usage error. */
export async function timeoutOption(cmd: CommandUnknownOpts, text: string): Promise<number> {
  // The reconciler's parser, loaded here: its module brings the Git client, which gitsync's start must not.
  const { parseDuration } = await import("../../controller/gitsync/reconcilers/repository.ts");
  const ms = /^(\d+(\.\d+)?(ms|s|m|h))+$/.test(text) ? parseDuration(text) : 0;
  return ms > 0 ? ms : cmd.error(`--timeout must be a duration like 90s or 10m, not "${text}"`);
}
