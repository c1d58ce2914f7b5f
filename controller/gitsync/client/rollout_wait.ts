/**
 * Following a rollout from the CLI (`approve`, `retry`, `rollback` and `sync` with --wait), for CI: exit 0
 * once the Revision is Healthy, exit 1 as soon as the outcome is known otherwise — it failed (the reason
 * and the root cause printed), it went back to AwaitingApproval because the plan changed (ApprovalStale,
 * the new digest named), the Application wants another Revision now (Superseded), or it is suspended —
 * and only when none of these is known, at the timeout.
 */
import { CliError } from "../../../internal/cli/cli_error.ts";
import type { KubeClient } from "../../../internal/k8s/mod.ts";
import type { Application, Revision } from "../api/mod.ts";
import { getApplication, getRevision } from "./reads.ts";

/** What the waiting command expects of the Revision. */
export interface Expectation {
  /**
   * The plan digest this command saw approved: AwaitingApproval with another digest is ApprovalStale.
   * Without it (a rollback), AwaitingApproval at all is: the rollback's approval no longer held.
   */
  approvedDigest?: string;
  /** Stop at AwaitingApproval as a result (sync --wait: a plan ready for review is its end). */
  approvalIsAnEnd?: boolean;
}

export type Verdict =
  | { end: "ok"; message: string }
  | { end: "failed"; message: string }
  | { waiting: string };

/** Where a rollout stands, for one look at the Revision and its Application. */
export function verdict(rev: Revision, app: Application, expect: Expectation = {}): Verdict {
  const name = rev.metadata!.name!;
  const appName = app.metadata!.name!;
  const phase = rev.status?.phase ?? "Pending";
  const digest = rev.status?.plan?.digest;
  if (phase === "Healthy") {
    const unchanged = rev.status?.conditions?.some((c) =>
      c.type === "RolloutComplete" && c.reason === "NoChanges"
    );
    return {
      end: "ok",
      message: `Revision ${name} is Healthy${
        unchanged ? " (its plan changed nothing: no rollout was needed)" : ""
      }`,
    };
  }
  if (phase === "Failed") return { end: "failed", message: failureText(rev) };
  if (phase === "Superseded" || app.status?.desiredRevision !== name) {
    return {
      end: "failed",
      message: `Revision ${name} is superseded: Application ${appName} wants Revision ${
        app.status?.desiredRevision ?? "(none)"
      } now (gitsync get ${appName} -n ${rev.metadata!.namespace})`,
    };
  }
  if (app.spec.suspend) {
    return {
      end: "failed",
      message:
        `Application ${appName} is suspended: Revision ${name} holds ${phase} until gitsync resume ${appName}`,
    };
  }
  if (phase === "AwaitingApproval") {
    if (expect.approvalIsAnEnd) {
      return {
        end: "ok",
        message: `Revision ${name} waits for approval of plan ${digest} (gitsync plan ${appName}; ` +
          `gitsync approve ${appName} --digest ${digest})`,
      };
    }
    if (expect.approvedDigest === undefined || (digest && digest !== expect.approvedDigest)) {
      return {
        end: "failed",
        message: `ApprovalStale: the plan of Revision ${name} changed after it was approved` +
          `${expect.approvedDigest ? ` (approved ${expect.approvedDigest})` : ""}: it is now ${digest} and ` +
          `needs a fresh approval (gitsync plan ${appName} --revision ${name}; gitsync approve ${appName} ` +
          `--revision ${name} --digest ${digest})`,
      };
    }
  }
  return { waiting: progressLine(rev) };
}

/** Phase, running hooks and what the rollout waits for. */
export function progressLine(rev: Revision): string {
  const phase = rev.status?.phase ?? "Pending";
  const running = (rev.status?.hooks ?? []).filter((h) => h.state === "Running").map((h) =>
    `${h.stage} hook ${h.name}`
  );
  const waitingFor = phase === "Applying" ? rev.status?.rollout?.waitingFor : undefined;
  return `${phase}${running.length ? ` (${running.join(", ")})` : ""}${
    waitingFor ? `: waiting for ${waitingFor}` : ""
  }`;
}

/** "Revision X failed: Reason: message", and the first root cause when the message does not carry it. */
export function failureText(rev: Revision): string {
  const f = rev.status?.failure;
  const cause = rev.status?.diagnosis?.firstRootCause;
  let text = `Revision ${rev.metadata!.name} failed${f ? `: ${f.reason}: ${f.message}` : ""}`;
  if (cause && !f?.message.includes(cause.message)) {
    text += `\nroot cause: ${cause.reason}: ${cause.resource.kind}/${cause.resource.name}: ${cause.message}`;
  }
  return text;
}

/**
 * Polls the Revision (and its Application) until the verdict is an end, reporting each change of
 * progress; returns the Revision when it ended well, throws a CliError (exit 1) otherwise.
 */
export async function waitForRollout(
  client: KubeClient,
  namespace: string,
  name: string,
  timeoutMs: number,
  progress: (line: string) => void,
  expect: Expectation = {},
): Promise<{ revision: Revision; message: string }> {
  const deadline = Date.now() + timeoutMs;
  let last = "";
  for (;;) {
    const rev = await getRevision(client, namespace, name);
    const app = await getApplication(client, namespace, rev.spec.applicationRef.name);
    const v = verdict(rev, app, expect);
    const line = "waiting" in v ? v.waiting : progressLine(rev);
    if (line !== last) progress(`  ${new Date().toISOString().slice(11, 19)} ${line}`);
    last = line;
    if ("end" in v) {
      if (v.end === "failed") throw new RolloutEnded(v.message, rev);
      return { revision: rev, message: v.message };
    }
    if (Date.now() > deadline) {
      throw new RolloutEnded(
        `Revision ${name} is still ${line} after ${timeoutMs / 1000} s (the timeout; --timeout sets it)`,
        rev,
      );
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/** A rollout that did not end Healthy: exit 1 with the message; the Revision for -o json|yaml output. */
export class RolloutEnded extends CliError {
  constructor(message: string, readonly revision: Revision) {
    super(message);
  }
}
