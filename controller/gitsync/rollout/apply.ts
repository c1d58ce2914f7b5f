/**
 * Writes to the cluster for a rollout, always as the Application's service account (an impersonating
 * client; seed section 5.2): Server-Side Apply of each object, first as a dry run for the plan, then
 * for real, group by group. Conflicts with another field manager fail unless the Application's
 * conflictPolicy is adopt (then the fields are taken over); an RBAC denial fails with Forbidden naming
 * the object. Failures carry the reason the Revision records (seed section 7, notes section 2).
 */
import type { KubeClient, KubeObject } from "../../../internal/k8s/mod.ts";
import { discoveryFor } from "../../../internal/k8s/discovery.ts";
import { isKubeApiError, NoKindMatchError } from "../../../internal/k8s/errors.ts";
import { createObject, getObject, patchObject } from "../../../internal/k8s/resources.ts";

export const FIELD_MANAGER = "gitsync";
/** Writes in flight at once for one group. */
const APPLY_CONCURRENCY = 8;

export type FailureReason =
  | "Forbidden"
  | "ConflictFailure"
  | "ApplyFailure"
  | "ValidationFailure"
  | "HookFailed"
  | "HealthFailure";

/** Why a write failed, for Revision.status.failure; the message names the object. */
export class RolloutFailure extends Error {
  override name = "RolloutFailure";
  constructor(
    readonly reason: FailureReason,
    message: string,
    readonly resource: { apiVersion?: string; kind?: string; namespace?: string; name?: string },
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

export interface ApplyOptions {
  /** fail (default): a field owned by another manager fails the apply; adopt: take it over. */
  conflictPolicy: "fail" | "adopt";
  /** Objects without a namespace of their own go here when their kind is namespaced. */
  defaultNamespace: string;
  /**
   * The objects are deleted and created again by the rollout (hooks): a dry run then creates a copy
   * under a generated name, so an existing object neither fails it nor shows as an update.
   */
  recreate?: boolean;
  /** For dry runs: the live object, when the caller already listed it (the managed inventory). */
  live?: (desired: KubeObject) => KubeObject | undefined;
}

export interface AppliedObject {
  desired: KubeObject;
  /** The live object before (absent when it did not exist, and for real applies). */
  before?: KubeObject;
  /** What the server answered (the would-be object for a dry run). */
  after: KubeObject;
}

function ref(o: KubeObject): string {
  const ns = o.metadata?.namespace;
  return `${o.kind}/${ns ? `${ns}/` : ""}${o.metadata?.name}`;
}

function failure(err: unknown, o: KubeObject, as: string): RolloutFailure {
  const resource = {
    apiVersion: o.apiVersion,
    kind: o.kind,
    ...(o.metadata?.namespace ? { namespace: o.metadata.namespace } : {}),
    name: o.metadata?.name,
  };
  if (err instanceof NoKindMatchError) {
    return new RolloutFailure("ValidationFailure", `${ref(o)}: ${err.message}`, resource, true);
  }
  if (isKubeApiError(err, 403)) {
    return new RolloutFailure(
      "Forbidden",
      `${as} may not apply ${ref(o)}: ${err.serverMessage}`,
      resource,
      false,
    );
  }
  if (isKubeApiError(err, 409) || isKubeApiError(err, "Conflict")) {
    return new RolloutFailure(
      "ConflictFailure",
      `${
        ref(o)
      }: fields are owned by another manager (${err.serverMessage}); set conflictPolicy: adopt to take them over`,
      resource,
      false,
    );
  }
  if (isKubeApiError(err, 422) || isKubeApiError(err, 400)) {
    return new RolloutFailure("ValidationFailure", `${ref(o)}: ${err.serverMessage}`, resource, false);
  }
  return new RolloutFailure("ApplyFailure", `${ref(o)}: ${(err as Error).message}`, resource, true);
}

/**
 * Server-Side Applies `objects` with `client` (which impersonates the service account), as a dry run
 * or for real, a few at a time; returns each object before and after, in order. The first failure
 * (in order) is thrown as a RolloutFailure once the others in flight are done.
 */
export async function applyObjects(
  client: KubeClient,
  objects: KubeObject[],
  options: ApplyOptions & { dryRun: boolean },
): Promise<AppliedObject[]> {
  const discovery = discoveryFor(client);
  const as = client.impersonation?.user ?? `user ${client.config.user.name}`;
  const one = async (desired: KubeObject): Promise<AppliedObject> => {
    let object = desired;
    try {
      const res = await discovery.forKind(desired.apiVersion ?? "", desired.kind ?? "");
      const namespace = res.namespaced ? desired.metadata?.namespace ?? options.defaultNamespace : undefined;
      object = { ...desired, metadata: { ...desired.metadata, ...(namespace ? { namespace } : {}) } };
      if (options.recreate && options.dryRun) {
        const { name, ...meta } = object.metadata!;
        const copy = await createObject(client, res, {
          ...object,
          metadata: { ...meta, generateName: `${name}-` },
        }, {
          namespace,
          fieldManager: FIELD_MANAGER,
          dryRun: true,
        });
        // The generated name is the object's own name again (a Job's labels carry it too).
        const generated = copy.metadata!.name;
        const after = JSON.parse(JSON.stringify(copy, (_k, v) => (v === generated ? name : v))) as KubeObject;
        delete after.metadata!.generateName;
        return { desired: object, after };
      }
      const after = await patchObject(client, res, object.metadata!.name!, object, {
        type: "apply",
        namespace,
        fieldManager: FIELD_MANAGER,
        force: options.conflictPolicy === "adopt",
        ...(options.dryRun ? { dryRun: true } : {}),
      });
      // The live object is for the plan's diff (a real apply does not need it): from the caller's
      // inventory when it has it; else read, but only when the dry run says the object exists (a dry-run
      // create answers without a resourceVersion), so new objects cost no extra request.
      let before: KubeObject | undefined;
      if (options.dryRun) {
        before = options.live?.(object);
        if (!before && after.metadata?.resourceVersion) {
          try {
            before = await getObject(client, res, object.metadata!.name!, { namespace });
          } catch (err) {
            if (!isKubeApiError(err, 404)) throw err;
          }
        }
      }
      return { desired: object, ...(before ? { before } : {}), after };
    } catch (err) {
      throw failure(err, object, as);
    }
  };
  // Objects of one group do not depend on each other: a few in flight at once, results in order, and
  // the first failure in order is the one reported.
  const results: PromiseSettledResult<AppliedObject>[] = new Array(objects.length);
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(APPLY_CONCURRENCY, objects.length) }, async () => {
    while (next < objects.length) {
      const i = next++;
      results[i] = await one(objects[i]!).then(
        (value) => ({ status: "fulfilled", value }) as const,
        (reason) => ({ status: "rejected", reason }) as const,
      );
    }
  }));
  const failed = results.find((r) => r.status === "rejected");
  if (failed) throw (failed as PromiseRejectedResult).reason;
  return results.map((r) => (r as PromiseFulfilledResult<AppliedObject>).value);
}
