/**
 * Approval through the admission webhook, end to end: kube-apiserver calls gitsync's webhook for
 * Application changes; a second user approves with `kubectl annotate`; a forged approved-by is undone;
 * an approval of a changed plan is refused; with the webhook down, Applications cannot change.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { type ReviewedRevision } from "../../controller/gitsync/approval/review.ts";
import { startWebhookServer, type WebhookServer } from "../../controller/gitsync/approval/webhook_server.ts";
import { certificateFiles } from "../../controller/gitsync/approval/certificate_source.ts";
import { loadCrds } from "../../controller/gitsync/crds.ts";
import { freePort } from "../harness/ports.ts";
import { installCrds, KubeClient } from "../../internal/k8s/mod.ts";
import { type KubeApiServer, startKubeApiServer } from "../harness/k8s.ts";
import { servingCertificate } from "../harness/serving_cert.ts";
import { bindClusterRole } from "../harness/k8s_fixtures.ts";
import { registerApprovalWebhook } from "./approval_webhook_fixture.ts";
import { API_VERSION, APPROVED_BY, APPROVED_DIGEST } from "../../controller/gitsync/api/mod.ts";

const run = promisify(execFile);
const NS = "team";
const APPS = `/apis/${API_VERSION}/namespaces/${NS}/applications`;
const PLAN = "sha256:" + "1".repeat(64);
const OLD_PLAN = "sha256:" + "0".repeat(64);

async function kubectl(kubeconfig: string, args: string[]): Promise<{ code: number; out: string }> {
  try {
    const { stdout, stderr } = await run("kubectl", ["--kubeconfig", kubeconfig, "-n", NS, ...args]);
    return { code: 0, out: stdout + stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? 1, out: (e.stdout ?? "") + (e.stderr ?? "") };
  }
}

describe("approval through the admission webhook", () => {
  let k8s: KubeApiServer;
  let admin: KubeClient;
  let webhook: WebhookServer | undefined;
  let dir: string;
  let bob: string;
  let mallory: string;
  const annotations = async () =>
    (await admin.request<{ metadata: { annotations?: Record<string, string> } }>({ path: `${APPS}/web` }))
      .metadata.annotations ?? {};

  before(async () => {
    k8s = await startKubeApiServer();
    admin = KubeClient.fromKubeconfig({ path: k8s.kubeconfigPath });
    dir = await mkdtemp(join(tmpdir(), "gitsync-webhook-"));
    // A serving certificate for 127.0.0.1, from a CA the API server is told to trust.
    const cert = await servingCertificate(dir, "gitsync-webhook");
    await installCrds(admin, await loadCrds(), { fieldManager: "test", timeoutMs: 30_000 });
    webhook = await startWebhookServer({
      host: "127.0.0.1",
      port: await freePort(),
      certificate: certificateFiles(cert.certFile, cert.keyFile),
      revision: async (ns, name) => {
        try {
          return await admin.request<ReviewedRevision>({
            path: `/apis/${API_VERSION}/namespaces/${ns}/revisions/${name}`,
          });
        } catch {
          return undefined;
        }
      },
    });
    await registerApprovalWebhook(admin, webhook.port, cert.certFile);
    await admin.request({ method: "POST", path: "/api/v1/namespaces", body: { metadata: { name: NS } } });
    // web-1 waits for approval; web-0, planned before it, was superseded by it.
    for (
      const [name, phase, digest] of [["web-0", "Superseded", OLD_PLAN], ["web-1", "AwaitingApproval", PLAN]]
    ) {
      await admin.request({
        method: "POST",
        path: `/apis/${API_VERSION}/namespaces/${NS}/revisions`,
        body: {
          apiVersion: API_VERSION,
          kind: "Revision",
          metadata: { name },
          spec: { applicationRef: { name: "web" }, sourceRevision: "abc123" },
        },
      });
      await admin.request({
        method: "PATCH",
        path: `/apis/${API_VERSION}/namespaces/${NS}/revisions/${name}/status`,
        contentType: "application/merge-patch+json",
        body: { status: { phase, plan: { digest } } },
      });
    }
    // People who may update Applications (and so approve them): RBAC decides who.
    await admin.request({
      method: "POST",
      path: "/apis/rbac.authorization.k8s.io/v1/clusterroles",
      body: {
        metadata: { name: "gitsync-approver" },
        rules: [{
          apiGroups: ["sync.gitsync.io"],
          resources: ["applications"],
          verbs: ["get", "list", "patch", "update"],
        }],
      },
    });
    for (const user of ["bob", "mallory"]) {
      await bindClusterRole(admin, NS, "gitsync-approver", { kind: "User", name: user });
    }
    bob = await k8s.userKubeconfig("bob", ["release-managers"]);
    mallory = await k8s.userKubeconfig("mallory");
    // The webhook configuration takes effect within a moment: retry the create until it is admitted.
    const app = {
      apiVersion: API_VERSION,
      kind: "Application",
      metadata: { name: "web", annotations: { [APPROVED_BY]: "forged-at-create" } },
      spec: { source: { repositoryRef: { name: "web" }, path: "deploy" } },
    };
    const deadline = Date.now() + 15_000;
    for (;;) {
      try {
        await admin.request({ method: "POST", path: APPS, body: app });
        break;
      } catch (err) {
        if (Date.now() > deadline) throw err;
        await new Promise((r) => setTimeout(r, 200));
      }
    }
    // The Application wants web-1 (the manager's Application reconciler would write this).
    await admin.request({
      method: "PATCH",
      path: `${APPS}/web/status`,
      contentType: "application/merge-patch+json",
      body: { status: { desiredRevision: "web-1" } },
    });
  });
  after(async () => {
    await webhook?.close();
    admin?.close();
    await k8s?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("strips approval annotations an Application is created with", async () => {
    assert.equal((await annotations())[APPROVED_BY], undefined);
  });

  it("a second user approves the digest they reviewed with kubectl annotate; the webhook records who", async () => {
    const r = await kubectl(bob, [
      "annotate",
      "applications.sync.gitsync.io",
      "web",
      "sync.gitsync.io/approved-revision=web-1",
      `sync.gitsync.io/approve-digest=${PLAN}`,
    ]);
    assert.equal(r.code, 0, r.out);
    const a = await annotations();
    assert.equal(a[APPROVED_BY], "bob");
    assert.equal(a[APPROVED_DIGEST], PLAN);
    assert.match(a["sync.gitsync.io/approved-at"] ?? "", /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.equal(a["sync.gitsync.io/approve-digest"], undefined, "never stored");
  });

  it("a forged approved-by is undone", async () => {
    const r = await kubectl(mallory, [
      "annotate",
      "--overwrite",
      "applications.sync.gitsync.io",
      "web",
      `${APPROVED_BY}=mallory`,
      `${APPROVED_DIGEST}=sha256:forged`,
    ]);
    assert.equal(r.code, 0, r.out);
    const a = await annotations();
    assert.equal(a[APPROVED_BY], "bob");
    assert.equal(a[APPROVED_DIGEST], PLAN);
  });

  it("approving a digest that is no longer the plan's is refused with both digests named", async () => {
    const stale = "sha256:" + "2".repeat(64);
    const r = await kubectl(bob, [
      "annotate",
      "--overwrite",
      "applications.sync.gitsync.io",
      "web",
      "sync.gitsync.io/approved-revision=web-1",
      `sync.gitsync.io/approve-digest=${stale}`,
    ]);
    assert.notEqual(r.code, 0);
    assert.match(r.out, /admission webhook "approval.sync.gitsync.io" denied the request/);
    assert.match(r.out, new RegExp(`you approved ${stale} but its plan is now ${PLAN}`));
    assert.equal((await annotations())[APPROVED_DIGEST], PLAN, "nothing changed");
  });

  it("a hand-written approval of a superseded Revision is refused, naming the Revision the Application wants", async () => {
    const r = await kubectl(bob, [
      "annotate",
      "--overwrite",
      "applications.sync.gitsync.io",
      "web",
      "sync.gitsync.io/approved-revision=web-0",
    ]);
    assert.notEqual(r.code, 0);
    assert.match(r.out, /admission webhook "approval.sync.gitsync.io" denied the request/);
    assert.match(r.out, /Revision web-0 is superseded: Application web wants Revision web-1 now/);
    const a = await annotations();
    assert.equal(a["sync.gitsync.io/approved-revision"], "web-1", "nothing changed");
    assert.equal(a[APPROVED_DIGEST], PLAN);
  });

  it("fails closed: with the webhook down no Application can change", async () => {
    await webhook!.close();
    webhook = undefined;
    const r = await kubectl(k8s.kubeconfigPath, ["label", "applications.sync.gitsync.io", "web", "team=a"]);
    assert.notEqual(r.code, 0);
    assert.match(r.out, /failed calling webhook "approval.sync.gitsync.io"/);
  });
});
