/**
 * What --wait and --timeout do in the commands that follow a rollout (`approve`, `retry`, `rollback`,
 * `sync`): progress lines on stderr while controller/gitsync/client/rollout_wait.ts follows it, then
 * how it ended, printed.
 */
import type { CommandUnknownOpts } from "@commander-js/extra-typings";
import { type Io, type OutputFormat, printResult } from "../../internal/cli/mod.ts";
import type { KubeClient } from "../../internal/k8s/mod.ts";
import { parseDuration, type Revision } from "../../controller/gitsync/api/mod.ts";
import {
  type Expectation,
  RolloutEnded,
  waitForRollout,
} from "../../controller/gitsync/client/rollout_wait.ts";

/**
 * Follows a rollout (`follow`) and prints `result` with how it ended; when it did not end well, the
 * document still goes to stdout for -o json|yaml (pipelines read it) and the reason is the error line.
 */
export async function reportRollout(
  io: Io,
  output: OutputFormat,
  result: Record<string, unknown>,
  follow: () => Promise<{ revision: Revision; message: string }>,
): Promise<void> {
  try {
    const end = await follow();
    result.phase = end.revision.status?.phase;
    result.planDigest ??= end.revision.status?.plan?.digest;
    printResult(io, result, output, () => end.message);
  } catch (err) {
    if (!(err instanceof RolloutEnded)) throw err;
    result.phase = err.revision.status?.phase ?? "Pending";
    if (err.revision.status?.failure) result.failure = err.revision.status.failure;
    if (output !== "table") printResult(io, result, output, () => "");
    throw err;
  }
}

/** What --wait does: follows the Revision's rollout, progress lines on stderr, then reports how it ended. */
export function followRollout(
  io: Io,
  output: OutputFormat,
  result: Record<string, unknown>,
  rollout: {
    client: KubeClient;
    namespace: string;
    revision: string;
    timeoutMs: number;
    expect?: Expectation;
  },
): Promise<void> {
  const { client, namespace, revision, timeoutMs, expect } = rollout;
  const progress = (line: string) => io.stderr.write(`${line}\n`);
  return reportRollout(
    io,
    output,
    result,
    () => waitForRollout(client, namespace, revision, timeoutMs, progress, expect),
  );
}

/** --timeout in milliseconds; anything but a duration like 90s or 10m is a usage error. */
export function timeoutOption(cmd: CommandUnknownOpts, text: string): number {
  const ms = parseDuration(text) ?? 0;
  return ms > 0 ? ms : cmd.error(`--timeout must be a duration like 90s or 10m, not "${text}"`);
}
