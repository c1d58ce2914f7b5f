/**
 * What every step of the Application reconciler works with: one context per reconcile, and the status
 * writes they share (the Application's, with its Ready condition; a Revision that ends Superseded).
 */
import type { EventRecorder, KubeClient } from "../../../../internal/k8s/mod.ts";
import {
  type Application,
  type Condition,
  type Repository,
  type Revision,
  UNFINISHED_PHASES,
} from "../../api/mod.ts";
import { ifNotFound, patchStatus } from "../../client/mod.ts";
import { readyFromRevision, setCondition } from "../../status/conditions.ts";
import { supersededStatus } from "../../status/revision_status.ts";

export interface ApplicationReconcilerOptions {
  client: KubeClient;
  getApplication: (key: string) => Application | undefined;
  getRepository: (key: string) => Repository | undefined;
  /** Checks a NotificationSink (and its Secret); throws an Error saying what is wrong. */
  checkSink?: (namespace: string, name: string) => Promise<void>;
  /** The Revisions of an Application (from the informer's cache). */
  listRevisions: (namespace: string, application: string) => Revision[];
  /** A Revision from the informer's cache, by namespace/name. */
  getRevision?: (key: string) => Revision | undefined;
  defaultServiceAccount?: string;
  events: EventRecorder;
  /**
   * ENABLE_WEBHOOKS=false: a rollback counts as an approval, and nothing records who asked; an
   * Application that does not sync automatically is then not rolled back (fail closed).
   */
  approvalsOff?: boolean;
  now?: () => Date;
}

/** One reconcile of one Application. */
export interface ApplicationContext {
  o: ApplicationReconcilerOptions;
  now: () => Date;
  app: Application;
  ns: string;
}

export const iso = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, "Z");

/** A Revision of the Application's namespace, from the cache. */
export const revisionNamed = (c: ApplicationContext, name: string) => c.o.getRevision?.(`${c.ns}/${name}`);

/** Writes status (and observedGeneration); fields written replace what was there whole. */
export async function writeStatus(c: ApplicationContext, status: Application["status"]) {
  // A rollback's old message does not outlive it.
  await patchStatus(c.o.client, "applications", c.app, {
    ...status,
    observedGeneration: c.app.metadata?.generation,
  }, { replacing: true });
}

/** Ready with `reason`; a new reason for False is an Event too. */
export async function ready(
  c: ApplicationContext,
  status: "True" | "False",
  reason: string,
  message: string,
) {
  const { app } = c;
  const before = app.status?.conditions?.find((x) => x.type === "Ready");
  await writeStatus(c, {
    conditions: setCondition(app.status?.conditions, { type: "Ready", status, reason, message }, c.now()),
  });
  if (before?.reason !== reason && status === "False") await c.o.events.warning(app, reason, message);
}

/** Ready as the desired Revision `name` stands now. */
export function readyNow(c: ApplicationContext, name: string): Condition[] {
  return readyFromRevision(c.app, name, revisionNamed(c, name), c.now());
}

/**
 * The Revision the Application wanted until now ends Superseded when unfinished (the Revision
 * reconciler does the same for one it finds moving on without being wanted; a Pending one only the
 * Application can tell from one about to be wanted).
 */
export async function supersede(c: ApplicationContext, by: string) {
  const was = c.app.status?.desiredRevision;
  const rev = was && was !== by ? revisionNamed(c, was) : undefined;
  if (!rev || !UNFINISHED_PHASES.has(rev.status?.phase ?? "Pending")) return;
  const superseded = supersededStatus(rev, by, c.now());
  await ifNotFound(
    patchStatus(c.o.client, "revisions", rev, superseded, { replacing: true }),
    () => undefined,
  );
  await c.o.events.normal(rev, "Superseded", `Application ${c.app.metadata!.name} wants Revision ${by} now`);
}
