import assert from "node:assert/strict";
import { test } from "node:test";
import { type Group, rolloutGroups, stripControlAnnotations, ValidationFailure } from "./groups.ts";

const obj = (kind: string, name: string, annotations?: Record<string, string>) => ({
  apiVersion: "v1",
  kind,
  metadata: { name, namespace: "app", ...(annotations ? { annotations } : {}) },
});
const names = (g: Group) => ("objects" in g ? g.objects.map((o) => o.metadata?.name) : undefined);

test("pre-sync hooks, waves ascending (negatives first, default 0), prune, post-sync hooks", () => {
  const groups = rolloutGroups([
    obj("Deployment", "web"),
    obj("Job", "smoke", { "sync.gitsync.io/hook": "post-sync" }),
    obj("Job", "migrate", { "sync.gitsync.io/hook": "pre-sync" }),
    obj("ConfigMap", "config", { "sync.gitsync.io/sync-wave": "-1" }),
    obj("Service", "web", { "sync.gitsync.io/sync-wave": "2" }),
    obj("ConfigMap", "draft", { "sync.gitsync.io/hook": "skip" }),
    obj("Secret", "creds", { "sync.gitsync.io/sync-wave": "-1" }),
  ]);
  assert.deepEqual(groups.map((g) => (g.stage === "wave" ? `wave ${g.wave}` : g.stage)), [
    "pre-sync",
    "wave -1",
    "wave 0",
    "wave 2",
    "prune",
    "post-sync",
  ]);
  assert.deepEqual(groups.map(names), [["migrate"], ["config", "creds"], ["web"], ["web"], undefined, [
    "smoke",
  ]]);
});

test("the prune step is there even when nothing else is", () => {
  assert.deepEqual(rolloutGroups([]), [{ stage: "prune" }]);
});

for (
  const [what, annotations, message] of [
    [
      "an unknown hook value",
      { "sync.gitsync.io/hook": "PreSync" },
      /Job\/app\/x: unknown sync.gitsync.io\/hook value "PreSync"/,
    ],
    [
      "an Argo CD hook",
      { "argocd.argoproj.io/hook": "PreSync" },
      /annotation argocd.argoproj.io\/hook is not supported/,
    ],
    [
      "a Helm hook left in plain YAML",
      { "helm.sh/hook": "pre-install" },
      /annotation helm.sh\/hook is not supported/,
    ],
    [
      "a wave that is not an integer",
      { "sync.gitsync.io/sync-wave": "1.5" },
      /sync-wave must be an integer, got "1.5"/,
    ],
  ] as const
) {
  test(`${what} fails the Revision with ValidationFailure before anything is applied`, () => {
    assert.throws(() => rolloutGroups([obj("Deployment", "ok"), obj("Job", "x", annotations)]), (err) => {
      assert.ok(err instanceof ValidationFailure);
      assert.equal(err.reason, "ValidationFailure");
      assert.match(err.message, message);
      return true;
    });
  });
}

test("approval and rollback annotations from Git are stripped; others kept", () => {
  const o = stripControlAnnotations(obj("Application", "a", {
    "sync.gitsync.io/approved-by": "mallory",
    "sync.gitsync.io/approved-digest": "sha256:forged",
    "sync.gitsync.io/approve-digest": "sha256:forged",
    "sync.gitsync.io/approved-revision": "a-1",
    "sync.gitsync.io/rollback-revision": "a-0",
    "sync.gitsync.io/sync-wave": "1",
    team: "payments",
  }));
  assert.deepEqual(o.metadata?.annotations, { "sync.gitsync.io/sync-wave": "1", team: "payments" });
});
