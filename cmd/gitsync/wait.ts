/**
 * What --wait and --timeout do in the commands that follow a rollout (`approve`, `retry`, `rollback`,
 * `sync`): progress lines on stderr while controller/gitsync/client/rollout_wait.ts follows it, then
 * how it ended, printed.
 */
import type { Command, CommandUnknownOpts, OptionValues } from "@commander-js/extra-typings";
import { type Io, type OutputFormat, outputOption, printResult } from "../../internal/cli/mod.ts";
import type { KubeSession } from "../../internal/k8s/cli_session.ts";
import { getApplication } from "../../controller/gitsync/client/mod.ts";
import type { Application } from "../../controller/gitsync/api/mod.ts";
import { OUTPUT_ENV, withSession } from "./kube.ts";
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

/** What --wait and --timeout say in the help of each command that asks for something and may follow it. */
const WAIT_HELP: Record<string, { wait: string; timeout: string }> = {
  retry: {
    wait: "Wait for the retried rollout to finish; exit 1 if it fails",
    timeout: "How long to wait, e.g. 90s, 10m",
  },
  rollback: {
    wait: "Wait for the rollback's rollout to finish; exit 1 if it fails",
    timeout: "How long to wait, e.g. 90s, 10m",
  },
  sync: { wait: "Wait for the fetch; exit 1 if it fails", timeout: "How long --wait waits, e.g. 30s, 5m" },
};

/** The flags every such command has. */
export interface WaitFlags {
  wait: boolean;
  timeout: string;
  output: OutputFormat;
}

/**
 * The rest of a command that asks the controller for something about one Application and, with --wait,
 * follows what it starts (`retry`, `rollback`, `sync`): the argument, --wait, --timeout and -o; then,
 * --timeout and `check` passed before any I/O, `request` in the session with the Application read.
 */
export function followsRollout<O extends OptionValues>(
  command: Command<[], O>,
  request: (
    s: KubeSession & { name: string; app: Application },
    flags: O & WaitFlags,
    timeoutMs: number,
  ) => Promise<void>,
  check: (flags: O & WaitFlags, cmd: CommandUnknownOpts) => void = () => {},
) {
  const help = WAIT_HELP[command.name()]!;
  return command
    .argument("<application>", "Application name")
    .option("--wait", help.wait, false)
    .option("--timeout <duration>", help.timeout, "10m")
    .addOption(outputOption({ env: OUTPUT_ENV }))
    .action(async (name, options, cmd) => {
      // Commander's option types do not resolve over a generic O; these are the options declared above.
      const flags = options as unknown as O & WaitFlags;
      const timeoutMs = timeoutOption(cmd, flags.timeout);
      check(flags, cmd);
      await withSession(cmd, async (session) => {
        const app = await getApplication(session.client, session.namespace, name);
        await request({ ...session, name, app }, flags, timeoutMs);
      });
    });
}
