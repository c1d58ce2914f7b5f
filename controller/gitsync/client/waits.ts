/**
 * What the CLI's --wait waits for before (or instead of) following a rollout: the controller taking up
 * a request (a fetch, a retry, a rollback), a commit becoming the Application's Revision, a Revision's
 * plan. Each polls until it is there, fails as soon as the outcome is known otherwise, and names what
 * it waited for at the deadline.
 */
import { CliError } from "../../../internal/cli/cli_error.ts";
import type { KubeClient } from "../../../internal/k8s/mod.ts";
import type { Application, Repository, Revision } from "../api/mod.ts";
import { condition, shortCommit } from "../views/text.ts";
import { getApplication, getOne, getRevision, revisionOf } from "./reads.ts";

/** Calls `check` every `everyMs` until it returns a value; past `deadline`, throws `late()`. */
async function poll<T>(
  deadline: number,
  everyMs: number,
  check: () => Promise<T | undefined>,
  late: () => Error,
): Promise<T> {
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw late();
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** `gitsync sync --wait`: the commit the Repository fetched for the request stamped `requestedAt`. */
export function waitForFetch(
  client: KubeClient,
  namespace: string,
  repoName: string,
  requestedAt: string,
  wait: { deadline: number; timeout: string },
): Promise<{ commit: string | undefined }> {
  return poll(wait.deadline, 500, async () => {
    const repo = await getOne<Repository>(client, "repositories", "Repository", namespace, repoName);
    if (repo.status?.lastHandledReconcileAt !== requestedAt) return undefined;
    const ready = repo.status.conditions?.find((c) => c.type === "Ready");
    if (ready?.status !== "True") {
      throw new CliError(`fetching Repository ${repoName} failed: ${ready?.reason}: ${ready?.message}`);
    }
    return { commit: repo.status.artifact?.revision };
  }, () => new CliError(`Repository ${repoName} was not fetched within ${wait.timeout}`));
}

/** The Revision the Application makes of `commit` (or, held by a rollback, the one it stays on). */
export function revisionForCommit(
  client: KubeClient,
  namespace: string,
  name: string,
  commit: string | undefined,
  wait: { deadline: number; timeout: string },
): Promise<string> {
  return poll(
    wait.deadline,
    500,
    async () => {
      const a: Application = await getApplication(client, namespace, name);
      const desired = a.status?.desiredRevision;
      const held = a.status?.rollback?.revision !== undefined && a.status.rollback.sourceRevision === commit;
      if (desired && (a.status?.sourceRevision === commit || held)) return desired;
      const ready = condition(a, "Ready");
      if (ready?.reason === "ServiceAccountRequired") {
        throw new CliError(`Application ${name} takes no commit: ${ready.reason}: ${ready.message}`);
      }
      return undefined;
    },
    () =>
      new CliError(`Application ${name} has not taken commit ${shortCommit(commit)} within ${wait.timeout}`),
  );
}

/** `gitsync retry --wait`: the controller takes the request up (lastHandledRetryAt) before the rollout runs. */
export async function waitForRetryTaken(
  client: KubeClient,
  namespace: string,
  revName: string,
  requestedAt: string,
  deadline: number,
): Promise<void> {
  await poll(deadline, 500, async () => {
    const rev = await getRevision(client, namespace, revName);
    return rev.status?.lastHandledRetryAt === requestedAt ? true : undefined;
  }, () => new CliError("the controller has not taken up the retry yet: is gitsync-manager running?"));
}

type RollbackStatus = NonNullable<NonNullable<Application["status"]>["rollback"]>;

/** `gitsync rollback`: the controller's answer to the request, in the Application's status.rollback. */
export function waitForRollbackTaken(
  client: KubeClient,
  namespace: string,
  name: string,
  requestedAt: string,
  deadline: number,
): Promise<RollbackStatus> {
  return poll(deadline, 500, async () => {
    const rollback = (await getApplication(client, namespace, name)).status?.rollback;
    return rollback?.requestedAt === requestedAt ? rollback : undefined;
  }, () =>
    new CliError(
      `the controller has not taken up the rollback request yet: is gitsync-manager running?`,
    ));
}

/** `gitsync plan --wait`: polls until the Revision meant is planned (a failure before any plan ends the wait). */
export async function waitForPlan(
  client: KubeClient,
  namespace: string,
  name: string,
  explicit: string | undefined,
  timeoutMs: number,
): Promise<Revision> {
  let waitingFor = "";
  return await poll(Date.now() + timeoutMs, 500, async () => {
    const app = await getApplication(client, namespace, name);
    const repo = await getOne<Repository>(
      client,
      "repositories",
      "Repository",
      namespace,
      app.spec.source.repositoryRef.name,
    ).catch(() => undefined);
    const commit = repo?.status?.artifact?.revision;
    const revName = explicit ?? app.status?.desiredRevision;
    const rev = revName ? await revisionOf(client, app, revName).catch(() => undefined) : undefined;
    const phase = rev?.status?.phase ?? "Pending";
    const current = explicit !== undefined || !commit || rev?.spec.sourceRevision === commit;
    if (rev && current && rev.status?.plan && phase !== "Pending" && phase !== "Planning") return rev;
    if (rev && current && phase === "Failed") {
      const f = rev.status?.failure;
      throw new CliError(
        `Revision ${rev.metadata!.name} failed before a plan${f ? `: ${f.reason}: ${f.message}` : ""}`,
      );
    }
    waitingFor = !rev
      ? `Application ${name} has no Revision yet`
      : !current
      ? `Application ${name} still wants Revision ${rev.metadata!.name} (commit ${
        shortCommit(rev.spec.sourceRevision)
      }), not one for commit ${shortCommit(commit)}`
      : `Revision ${rev.metadata!.name} is ${phase}`;
    return undefined;
  }, () => new CliError(`no plan within ${timeoutMs / 1000} s: ${waitingFor}`));
}
