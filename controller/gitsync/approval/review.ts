/**
 * The approval rules of the admission webhook for Applications (seed sections 2, 3, 5.1): who
 * approved, when, and which plan digest are recorded from the authenticated request, never taken from
 * the object. A person approves by setting `approved-revision` (and, to bind the approval to the plan
 * they reviewed, `approve-digest`); the webhook refuses an approve-digest that differs from the
 * Revision's current plan digest, records approved-by/at/digest, and drops approve-digest (it is never
 * stored). Any hand-made change to approved-by/at/digest is undone: those keep the values the webhook
 * last wrote. Only the Revision the Application wants deployed, waiting for approval, can be approved: one
 * superseded, failed, rolling out or deployed already is refused naming the current Revision, so nothing
 * records an approval that would roll out nothing. This module is the decision only (AdmissionReview in,
 * response with a JSON Patch out).
 */
import {
  APPROVE_DIGEST,
  APPROVED_AT,
  APPROVED_BY,
  APPROVED_DIGEST,
  APPROVED_REVISION,
  ROLLBACK_REQUESTED_AT,
  ROLLBACK_REQUESTED_BY,
} from "../api/mod.ts";

const WEBHOOK_OWNED = [APPROVED_BY, APPROVED_AT, APPROVED_DIGEST, ROLLBACK_REQUESTED_BY];

/** The parts of an admission.k8s.io/v1 AdmissionRequest this review reads. */
export interface AdmissionRequest {
  uid: string;
  kind: { group: string; version: string; kind: string };
  namespace?: string;
  operation: "CREATE" | "UPDATE" | "DELETE" | "CONNECT";
  userInfo: { username?: string; groups?: string[] };
  object?: {
    metadata?: { name?: string; annotations?: Record<string, string> };
    status?: { desiredRevision?: string };
  };
  oldObject?: { metadata?: { annotations?: Record<string, string> } } | null;
}

export interface AdmissionResponse {
  uid: string;
  allowed: boolean;
  status?: { code: number; reason: string; message: string };
  patchType?: "JSONPatch";
  /** base64 of a JSON Patch (RFC 6902). */
  patch?: string;
}

/** What the review reads of a Revision (a Revision of the manager's cache is one). */
export interface ReviewedRevision {
  status?: {
    phase?: string;
    plan?: { digest?: string };
    failure?: { reason?: string; message?: string };
  };
}

/** Looks up a Revision in the Application's namespace (undefined: not found). */
export type RevisionLookup = (namespace: string, revision: string) => Promise<ReviewedRevision | undefined>;

/**
 * Why Revision `name` cannot be approved now, naming what to do instead; undefined when it can: it is the
 * one the Application wants (status.desiredRevision) and it waits for approval.
 */
function unapprovable(
  app: string,
  desired: string | undefined,
  name: string,
  rev: ReviewedRevision,
): string | undefined {
  const phase = rev.status?.phase;
  if (phase === "Superseded" || name !== desired) {
    return `Revision ${name} is superseded: Application ${app} wants Revision ${
      desired ?? "(none yet)"
    } now; ` +
      `review and approve that one (gitsync plan ${app}; gitsync approve ${app})`;
  }
  if (phase === "Failed") {
    const f = rev.status?.failure;
    return `Revision ${name} failed${f?.reason ? `: ${f.reason}` : ""}: there is nothing to approve; ` +
      `fix the cause, then gitsync retry ${app}, or roll back: gitsync rollback ${app}`;
  }
  if (phase === "Healthy") return `Revision ${name} is deployed and Healthy: there is nothing to approve`;
  if (phase !== "AwaitingApproval") {
    return `Revision ${name} is ${phase ?? "Pending"}, not AwaitingApproval: there is nothing to approve`;
  }
  return undefined;
}

const deny = (uid: string, code: number, reason: string, message: string): AdmissionResponse => ({
  uid,
  allowed: false,
  status: { code, reason, message },
});

/** JSON Pointer token for an annotation key (`/` and `~` escaped). */
const pointer = (key: string) => `/metadata/annotations/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`;

export async function reviewApplication(
  req: AdmissionRequest,
  lookup: RevisionLookup,
  now: () => Date = () => new Date(),
): Promise<AdmissionResponse> {
  if (req.operation !== "CREATE" && req.operation !== "UPDATE") return { uid: req.uid, allowed: true };
  const current = req.object?.metadata?.annotations ?? {};
  const old = req.oldObject?.metadata?.annotations ?? {};
  const wanted: Record<string, string | undefined> = {};
  // What the webhook owns keeps its last written value, whatever the request says.
  for (const key of WEBHOOK_OWNED) wanted[key] = old[key];

  const revision = current[APPROVED_REVISION];
  const digest = current[APPROVE_DIGEST];
  const asksApproval = digest !== undefined ||
    (revision !== undefined && revision !== old[APPROVED_REVISION]);
  if (asksApproval) {
    if (!revision) {
      return deny(
        req.uid,
        400,
        "BadRequest",
        `${APPROVE_DIGEST} needs ${APPROVED_REVISION}: name the Revision you approve`,
      );
    }
    const user = req.userInfo.username;
    if (!user) return deny(req.uid, 403, "Forbidden", "an approval needs an authenticated user");
    const ns = req.namespace ?? "";
    const rev = await lookup(ns, revision);
    const actual = rev?.status?.plan?.digest;
    if (!actual) {
      return deny(
        req.uid,
        404,
        "NotFound",
        `Revision ${ns}/${revision} has no plan to approve (not found or not planned yet)`,
      );
    }
    const refused = unapprovable(
      req.object?.metadata?.name ?? "",
      req.object?.status?.desiredRevision,
      revision,
      rev!,
    );
    if (refused) return deny(req.uid, 409, "Conflict", refused);
    if (digest !== undefined && digest !== actual) {
      return deny(
        req.uid,
        409,
        "Conflict",
        `the plan of Revision ${revision} changed: you approved ${digest} but its plan is now ${actual}; ` +
          "review the new plan (gitsync plan) and approve again",
      );
    }
    wanted[APPROVED_BY] = user;
    wanted[APPROVED_AT] = now().toISOString().replace(/\.\d{3}Z$/, "Z");
    wanted[APPROVED_DIGEST] = actual;
  }
  wanted[APPROVE_DIGEST] = undefined; // checked above, never stored
  const rollback = current[ROLLBACK_REQUESTED_AT];
  if (rollback !== undefined && rollback !== old[ROLLBACK_REQUESTED_AT]) {
    const user = req.userInfo.username;
    if (!user) return deny(req.uid, 403, "Forbidden", "a rollback request needs an authenticated user");
    wanted[ROLLBACK_REQUESTED_BY] = user;
  }

  const ops: Record<string, unknown>[] = [];
  const hasAnnotations = req.object?.metadata?.annotations !== undefined;
  const after: Record<string, string> = { ...current };
  for (const [key, value] of Object.entries(wanted)) {
    if (value === undefined) delete after[key];
    else after[key] = value;
  }
  if (!hasAnnotations) {
    if (Object.keys(after).length) ops.push({ op: "add", path: "/metadata/annotations", value: after });
  } else {
    for (const [key, value] of Object.entries(wanted)) {
      if (value === undefined && key in current) ops.push({ op: "remove", path: pointer(key) });
      else if (value !== undefined && current[key] !== value) {
        ops.push({ op: key in current ? "replace" : "add", path: pointer(key), value });
      }
    }
  }
  if (!ops.length) return { uid: req.uid, allowed: true };
  return {
    uid: req.uid,
    allowed: true,
    patchType: "JSONPatch",
    patch: Buffer.from(JSON.stringify(ops)).toString("base64"),
  };
}
