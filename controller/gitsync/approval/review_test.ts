import assert from "node:assert/strict";
import { test } from "node:test";
import {
  type AdmissionRequest,
  type AdmissionResponse,
  reviewApplication,
  type ReviewedRevision,
} from "./review.ts";
import {
  APPROVE_DIGEST,
  APPROVED_AT,
  APPROVED_BY,
  APPROVED_DIGEST,
  APPROVED_REVISION,
  ROLLBACK_REQUESTED_AT,
  ROLLBACK_REQUESTED_BY,
} from "../api/mod.ts";

const PLAN = "sha256:" + "a".repeat(64);
const revisions: Record<string, ReviewedRevision> = {
  "team/web-7": { status: { phase: "AwaitingApproval", plan: { digest: PLAN } } },
  "team/web-6": { status: { phase: "Superseded", plan: { digest: PLAN } } },
};
const lookup = (ns: string, rev: string) => Promise.resolve(revisions[`${ns}/${rev}`]);
const now = () => new Date("2026-11-25T10:11:12.345Z");

function update(
  annotations: Record<string, string> | undefined,
  old: Record<string, string> = {},
  user = "alice",
): AdmissionRequest {
  return {
    uid: "u1",
    kind: { group: "sync.gitsync.io", version: "v1alpha1", kind: "Application" },
    namespace: "team",
    operation: "UPDATE",
    userInfo: { username: user, groups: ["devs"] },
    object: {
      metadata: { name: "web", ...(annotations ? { annotations } : {}) },
      status: { desiredRevision: "web-7" },
    },
    oldObject: { metadata: { annotations: old } },
  };
}

/** Applies the response's JSON Patch to the request's annotations, as the API server would. */
function annotationsAfter(req: AdmissionRequest, res: AdmissionResponse): Record<string, string> {
  const result = { ...(req.object?.metadata?.annotations ?? {}) };
  if (!res.patch) return result;
  for (const op of JSON.parse(Buffer.from(res.patch, "base64").toString())) {
    if (op.path === "/metadata/annotations") return op.value;
    const key = op.path.slice("/metadata/annotations/".length).replace(/~1/g, "/").replace(/~0/g, "~");
    if (op.op === "remove") delete result[key];
    else result[key] = op.value;
  }
  return result;
}

test("approving the digest the user saw records who, when and which digest, and drops approve-digest", async () => {
  const req = update({ [APPROVED_REVISION]: "web-7", [APPROVE_DIGEST]: PLAN, team: "a" });
  const res = await reviewApplication(req, lookup, now);
  assert.equal(res.allowed, true);
  assert.deepEqual(annotationsAfter(req, res), {
    [APPROVED_REVISION]: "web-7",
    [APPROVED_BY]: "alice",
    [APPROVED_AT]: "2026-11-25T10:11:12Z",
    [APPROVED_DIGEST]: PLAN,
    team: "a",
  });
});

test("an approve-digest that is not the current plan is refused (409), nothing recorded", async () => {
  const res = await reviewApplication(
    update({ [APPROVED_REVISION]: "web-7", [APPROVE_DIGEST]: "sha256:" + "b".repeat(64) }),
    lookup,
    now,
  );
  assert.equal(res.allowed, false);
  assert.equal(res.status?.code, 409);
  assert.match(
    res.status!.message,
    /the plan of Revision web-7 changed: you approved sha256:b+ but its plan is now sha256:a+/,
  );
});

test("a forged approved-by is undone: the webhook's last values stay", async () => {
  const old = { [APPROVED_BY]: "alice", [APPROVED_AT]: "2026-11-24T00:00:00Z", [APPROVED_DIGEST]: PLAN };
  const req = update(
    { ...old, [APPROVED_BY]: "mallory", [APPROVED_DIGEST]: "sha256:forged" },
    old,
    "mallory",
  );
  const res = await reviewApplication(req, lookup, now);
  assert.equal(res.allowed, true);
  assert.deepEqual(annotationsAfter(req, res), old);
});

test("forged approval annotations on a new Application are removed", async () => {
  const req = {
    ...update({ [APPROVED_BY]: "mallory", [APPROVED_DIGEST]: PLAN }),
    operation: "CREATE" as const,
    oldObject: null,
  };
  const res = await reviewApplication(req, lookup, now);
  assert.deepEqual(annotationsAfter(req, res), {});
});

test("naming a Revision without a digest approves its current plan", async () => {
  const req = update({ [APPROVED_REVISION]: "web-7" });
  assert.equal(annotationsAfter(req, await reviewApplication(req, lookup, now))[APPROVED_DIGEST], PLAN);
});

test("an unknown Revision, a digest without a Revision, or no user are refused", async () => {
  assert.equal(
    (await reviewApplication(update({ [APPROVED_REVISION]: "web-9" }), lookup, now)).status?.code,
    404,
  );
  assert.equal((await reviewApplication(update({ [APPROVE_DIGEST]: PLAN }), lookup, now)).status?.code, 400);
  assert.equal(
    (await reviewApplication(update({ [APPROVED_REVISION]: "web-7" }, {}, ""), lookup, now)).status?.code,
    403,
  );
});

test("an update that touches no approval annotation passes unchanged", async () => {
  const old = { [APPROVED_BY]: "alice", [APPROVED_REVISION]: "web-7" };
  const res = await reviewApplication(update({ ...old, team: "b" }, old), lookup, now);
  assert.deepEqual(res, { uid: "u1", allowed: true });
});

test("a rollback request records who asked; a hand-made requested-by is undone", async () => {
  const asked = update({ [ROLLBACK_REQUESTED_AT]: "2026-11-25T10:00:00Z" }, {}, "carol");
  assert.deepEqual(annotationsAfter(asked, await reviewApplication(asked, lookup, now)), {
    [ROLLBACK_REQUESTED_AT]: "2026-11-25T10:00:00Z",
    [ROLLBACK_REQUESTED_BY]: "carol",
  });
  const before = { [ROLLBACK_REQUESTED_AT]: "2026-11-25T10:00:00Z", [ROLLBACK_REQUESTED_BY]: "carol" };
  const forged = update({ ...before, [ROLLBACK_REQUESTED_BY]: "the-boss" }, before, "mallory");
  assert.deepEqual(annotationsAfter(forged, await reviewApplication(forged, lookup, now)), before);
});

test("only the Revision the Application wants, waiting for approval, is approved: others are refused (409) saying why", async () => {
  const refused = async (rev: ReviewedRevision | undefined, name = "web-7") => {
    const res = await reviewApplication(
      update({ [APPROVED_REVISION]: name }),
      (ns, r) => Promise.resolve(r === name ? rev : revisions[`${ns}/${r}`]),
      now,
    );
    assert.equal(res.allowed, false, JSON.stringify(res));
    assert.equal(res.status?.code, 409);
    return res.status!.message;
  };
  const planned = (phase: string, extra = {}) => ({ status: { phase, plan: { digest: PLAN }, ...extra } });
  // Superseded, or simply not the one the Application wants (another Application's, an older one).
  const superseded =
    /^Revision web-6 is superseded: Application web wants Revision web-7 now; review and approve that one/;
  assert.match(await refused(planned("Superseded"), "web-6"), superseded);
  assert.match(await refused(planned("AwaitingApproval"), "web-6"), superseded);
  assert.match(
    await refused(
      planned("Failed", { failure: { reason: "HealthFailure", message: "Deployment/web is Degraded" } }),
    ),
    /^Revision web-7 failed: HealthFailure: there is nothing to approve; fix the cause, then gitsync retry web/,
  );
  assert.match(
    await refused(planned("Healthy")),
    /^Revision web-7 is deployed and Healthy: there is nothing to approve$/,
  );
  assert.match(await refused(planned("Applying")), /^Revision web-7 is Applying, not AwaitingApproval/);
  // On a new Application nothing is wanted yet.
  const created = {
    ...update({ [APPROVED_REVISION]: "web-7" }),
    operation: "CREATE" as const,
    object: { metadata: { name: "web", annotations: { [APPROVED_REVISION]: "web-7" } } },
    oldObject: null,
  };
  const res = await reviewApplication(created, lookup, now);
  assert.match(res.status!.message, /wants Revision \(none yet\) now/);
});
