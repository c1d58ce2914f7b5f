/**
 * gitsync off the happy path (issue 37), black-box: the compiled `gitsync-manager run` (as install.yaml's
 * service account, its approval webhook registered) on one cluster with workloads and kwok nodes, and the
 * compiled `gitsync` as bob (gitsync-approver), as a CI pipeline runs it. A crash-looping and an
 * unpullable Deployment fail their Revision at their progress deadline, and `approve --wait` exits 1 at
 * once with the cause; Ready, Drifted, `apps`, `get` and `diagnose` say what failed and what is live;
 * rollback lands on the last good Revision (1.0.0 → 1.1.0 → 1.2.0 failing → 1.1.0), or the one
 * `--to-revision` names; Revisions the Application stopped wanting end Superseded and cannot be
 * approved, neither with the CLI nor by hand (nor can a failed or a deployed one); a rollout waiting on a LoadBalancer says so, and fails at spec.healthTimeout; a plan that
 * changes nothing needs no approval; failures at planning (RenderFailure, Forbidden, ApplyFailure)
 * show in `apps` with their reason.
 */
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer as createHttpsServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { loadCrds } from "../../controller/gitsync/crds.ts";
import { installCrds, KubeClient, listEvents } from "../../internal/k8s/mod.ts";
import { runBinary, type RunningBinary, startBinary } from "../harness/binary.ts";
import { type GitHttpServer, type GitRepo, startGitHttpServer } from "../harness/git_server.ts";
import { type KubeApiServer, POD_OUTCOME_ANNOTATION, startKubeApiServer } from "../harness/k8s.ts";
import { bindClusterRole, createNamespace, serviceAccountWithRole } from "../harness/k8s_fixtures.ts";
import { freePort } from "../harness/ports.ts";
import { servingCertificate } from "../harness/serving_cert.ts";
import { registerApprovalWebhook } from "./approval_webhook_fixture.ts";
import { installControllerRbac } from "./install_fixture.ts";
import { untilWithLog } from "../harness/until.ts";
import {
  API_VERSION,
  type Application,
  APPROVE_DIGEST,
  APPROVED_REVISION,
  type Revision,
} from "../../controller/gitsync/api/mod.ts";

const NS = "shop";
const API = `/apis/${API_VERSION}/namespaces/${NS}`;

/** A Deployment of `name` at `version`; `outcome` makes its Pods fail the way kwok's stages say. */
const deployment = (name: string, version: string, outcome?: "crashloop" | "image-pull-backoff") => `
apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}}
spec:
  replicas: 1
  progressDeadlineSeconds: 10
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata:
      labels: {app: ${name}}
      annotations: {${outcome ? `"${POD_OUTCOME_ANNOTATION}": ${outcome}` : ""}}
    spec: {containers: [{name: app, image: "registry.example/${name}:${version}"}]}
`;
/** web at `version`: the Deployment in wave 0, a ConfigMap naming the version in wave 1. */
const web = (version: string, outcome?: "crashloop") => ({
  "web/deploy.yaml": deployment("web", version, outcome),
  "web/after.yaml":
    `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web-after\n  annotations: {sync.gitsync.io/sync-wave: "1"}\ndata: {version: "${version}"}\n`,
});
const lb = (setting: string) => ({
  "edge/lb.yaml":
    "apiVersion: v1\nkind: Service\nmetadata: {name: lb}\nspec:\n  type: LoadBalancer\n  selector: {app: none}\n  ports: [{port: 80}]\n",
  "edge/cm.yaml": `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: edge}\ndata: {setting: "${setting}"}\n`,
});

describe("gitsync failure paths: failing rollouts fail, rollback lands on the last good state, status tells the truth", () => {
  let k8s: KubeApiServer;
  let admin: KubeClient;
  let git: GitHttpServer;
  let shop: GitRepo;
  let edge: GitRepo;
  let dir: string;
  let manager: RunningBinary;
  let bob: string;
  /** A webhook sink for web's Failed notifications: the bodies it received. */
  let sink: Server;
  const notified: { event: string; revision: string }[] = [];

  const get = <T>(path: string) => admin.request<T>({ path });
  const app = (name: string) => get<Application>(`${API}/applications/${name}`);
  const revision = (name: string) => get<Revision>(`${API}/revisions/${name}`);
  /** `gitsync <args> -n shop` as bob. */
  const gitsync = (...args: string[]) =>
    runBinary("gitsync", [...args, "-n", NS, "--kubeconfig", bob], { timeoutMs: 180_000 });

  const until = untilWithLog(() => manager.output());

  /** The Application's desired Revision once it is `phase` (and, given, other than `not`). */
  const desiredIn = (name: string, phase: string, not?: string) =>
    until(`${name}: a Revision ${phase}`, async () => {
      const d = (await app(name)).status?.desiredRevision;
      const rev = d && d !== not ? await revision(d) : undefined;
      return rev?.status?.phase === phase ? rev : undefined;
    });
  const createRepository = (name: string, repo: GitRepo) =>
    admin.request({
      method: "POST",
      path: `${API}/repositories`,
      body: {
        apiVersion: API_VERSION,
        kind: "Repository",
        metadata: { name },
        spec: { git: { url: repo.url }, pollInterval: "1h" },
      },
    });
  const createApplication = (name: string, spec: Record<string, unknown>) =>
    admin.request({
      method: "POST",
      path: `${API}/applications`,
      body: { apiVersion: API_VERSION, kind: "Application", metadata: { name }, spec },
    });
  /**
   * An approval written by hand as bob (`kubectl annotate ... approved-revision=<rev>
   * approve-digest=<its plan's digest>`, no CLI): the webhook's answer, undefined when it admitted it.
   */
  const handApprove = async (application: string, rev: string) => {
    const digest = (await revision(rev)).status!.plan!.digest;
    const asBob = KubeClient.fromKubeconfig({ path: bob });
    try {
      await asBob.request({
        method: "PATCH",
        path: `${API}/applications/${application}`,
        contentType: "application/merge-patch+json",
        body: { metadata: { annotations: { [APPROVED_REVISION]: rev, [APPROVE_DIGEST]: digest } } },
      });
      return undefined;
    } catch (err) {
      return (err as { serverMessage?: string }).serverMessage ?? String(err);
    } finally {
      asBob.close();
    }
  };
  const ready = async (name: string) => (await app(name)).status?.conditions?.find((c) => c.type === "Ready");
  const drifted = async (name: string) =>
    (await app(name)).status?.conditions?.find((c) => c.type === "Drifted");
  const image = async () =>
    (await get<{ spec: { template: { spec: { containers: { image: string }[] } } } }>(
      `/apis/apps/v1/namespaces/${NS}/deployments/web`,
    )).spec.template.spec.containers[0]!.image;

  before(async () => {
    [k8s, git] = await Promise.all([startKubeApiServer({ workloads: true }), startGitHttpServer()]);
    admin = KubeClient.fromKubeconfig({ path: k8s.kubeconfigPath });
    dir = await mkdtemp(join(tmpdir(), "gitsync-failures-"));
    await installCrds(admin, await loadCrds(), { fieldManager: "test", timeoutMs: 30_000 });
    await createNamespace(admin, NS, { forPods: true });
    (await serviceAccountWithRole(admin, NS, "deployer", [
      { apiGroups: ["", "apps"], resources: ["configmaps", "deployments", "services"], verbs: ["*"] },
      // Reads below the workloads, for the diagnosis; Secrets only read: writing one is Forbidden.
      {
        apiGroups: ["", "apps", "discovery.k8s.io"],
        resources: ["pods", "replicasets", "endpointslices", "persistentvolumeclaims", "secrets"],
        verbs: ["get", "list"],
      },
    ])).close();
    // An account that may write ConfigMaps in any namespace: one in a namespace that does not exist is
    // an ApplyFailure (404), not Forbidden.
    await admin.request({
      method: "POST",
      path: "/apis/rbac.authorization.k8s.io/v1/clusterroles",
      body: {
        metadata: { name: "configmaps-anywhere" },
        rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["*"] }],
      },
    });
    await admin.request({
      method: "POST",
      path: `/api/v1/namespaces/${NS}/serviceaccounts`,
      body: { metadata: { name: "wide" } },
    });
    await admin.request({
      method: "POST",
      path: "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
      body: {
        metadata: { name: "wide-configmaps" },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "configmaps-anywhere" },
        subjects: [{ kind: "ServiceAccount", name: "wide", namespace: NS }],
      },
    });
    shop = await git.createRepo("shop", {
      ...web("1.0.0"),
      "pull/deploy.yaml": deployment("pull", "9.9.9", "image-pull-backoff"),
      "cfg/settings.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg}\ndata: {mode: live}\n",
      "broken/bad.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bad\ndata: [\n",
      "forbidden/secret.yaml":
        "apiVersion: v1\nkind: Secret\nmetadata: {name: not-mine}\nstringData: {k: v}\n",
      "nowhere/cm.yaml":
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: lost, namespace: gone}\ndata: {a: b}\n",
    });
    edge = await git.createRepo("edge", lb("a"));

    const controllerKubeconfig = await installControllerRbac(admin, k8s, join(dir, "controller.kubeconfig"));
    bob = await k8s.userKubeconfig("bob");
    // bob approves (gitsync-approver) and, as a CI job's account does for `gitsync sync`, patches Repositories.
    const rbac = `/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}`;
    await admin.request({
      method: "POST",
      path: `${rbac}/roles`,
      body: {
        metadata: { name: "sync-repositories" },
        rules: [{ apiGroups: ["sync.gitsync.io"], resources: ["repositories"], verbs: ["patch"] }],
      },
    });
    await bindClusterRole(admin, NS, "gitsync-approver", { kind: "User", name: "bob" });
    await bindClusterRole(admin, NS, "sync-repositories", { kind: "User", name: "bob" }, "Role");
    const cert = await servingCertificate(dir, "gitsync-webhook");
    sink = createHttpsServer(
      { cert: await readFile(cert.certFile), key: await readFile(cert.keyFile) },
      (req, res) => {
        let body = "";
        req.on("data", (d) => (body += d));
        req.on("end", () => {
          notified.push(JSON.parse(body));
          res.writeHead(204).end();
        });
      },
    );
    await new Promise<void>((r) => sink.listen(0, "127.0.0.1", r));
    await admin.request({
      method: "POST",
      path: `/api/v1/namespaces/${NS}/secrets`,
      body: {
        metadata: { name: "ci-hook" },
        stringData: {
          url: `https://127.0.0.1:${(sink.address() as AddressInfo).port}/hook`,
          hmacKey: "k",
          "ca.crt": await readFile(cert.certFile, "utf8"),
        },
      },
    });
    await admin.request({
      method: "POST",
      path: `${API}/notificationsinks`,
      body: {
        apiVersion: API_VERSION,
        kind: "NotificationSink",
        metadata: { name: "ci-hook" },
        spec: { type: "webhook", secretRef: { name: "ci-hook" } },
      },
    });
    manager = await startBinary("gitsync-manager", [
      "run",
      "--kubeconfig",
      controllerKubeconfig,
      "--health-probe-bind-address",
      "127.0.0.1:0",
      "--webhook-bind-address",
      `127.0.0.1:${await freePort()}`,
      "--webhook-cert-path",
      dir,
      "--cache-dir",
      dir,
      "--drift-resync-interval",
      "1h",
    ], { readyPath: "/readyz" });
    const webhookPort = manager.records().find((r) => r.msg === "listening")!.webhookPort as number;
    await registerApprovalWebhook(admin, webhookPort, cert.certFile);

    await createRepository("shop", shop);
    const source = (path: string, repo = "shop") => ({ repositoryRef: { name: repo }, path });
    await createApplication("web", {
      serviceAccountName: "deployer",
      source: source("web"),
      notifications: [{ sinkRef: { name: "ci-hook" }, events: ["Failed"] }],
    });
    // Failures at planning, for `apps`: they sync automatically, as nothing would be approved anyway.
    const failing = [["broken", "deployer"], ["forbidden", "deployer"], ["nowhere", "wide"]] as const;
    for (const [name, sa] of failing) {
      await createApplication(name, {
        serviceAccountName: sa,
        sync: { automatic: true },
        source: source(name),
      });
    }
  });
  after(async () => {
    sink?.close();
    sink?.closeAllConnections?.();
    await manager?.stop();
    admin?.close();
    await Promise.all([k8s?.stop(), git?.stop()]);
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const revisions: Record<string, string> = {};

  /** A new web commit at `version`: `sync --wait` ends when its plan waits for approval. */
  async function pushWeb(version: string, outcome?: "crashloop"): Promise<string> {
    await shop.commit(web(version, outcome), `web ${version}`);
    const synced = await gitsync("sync", "web", "--wait", "--timeout", "60s", "-o", "json");
    assert.equal(synced.code, 0, synced.stderr);
    const out = JSON.parse(synced.stdout);
    assert.equal(out.phase, "AwaitingApproval", synced.stdout);
    assert.match(out.planDigest, /^sha256:[0-9a-f]{64}$/);
    return out.revision;
  }

  it("a crash-looping rollout fails at its Deployment's progress deadline: approve --wait exits 1 with the cause, later waves never run", async () => {
    revisions.v100 = (await desiredIn("web", "AwaitingApproval")).metadata!.name!;
    const first = await gitsync("approve", "web", "--yes", "--wait", "--timeout", "60s");
    assert.equal(first.code, 0, first.stderr);
    // Deployed and Healthy: the webhook records no approval of it either (the CLI says the same).
    assert.match(
      (await handApprove("web", revisions.v100)) ?? "admitted",
      new RegExp(`Revision ${revisions.v100} is deployed and Healthy: there is nothing to approve`),
    );
    revisions.v110 = await pushWeb("1.1.0");
    assert.equal((await gitsync("approve", "web", "--yes", "--wait", "--timeout", "60s")).code, 0);
    assert.equal(await image(), "registry.example/web:1.1.0");

    revisions.v120 = await pushWeb("1.2.0", "crashloop");
    const started = Date.now();
    const failed = await gitsync("approve", "web", "--yes", "--wait", "--timeout", "5m");
    const took = Date.now() - started;
    assert.equal(failed.code, 1, failed.stdout + failed.stderr);
    // The deadline is 10 s: the outcome is known then, not at the 5-minute timeout.
    assert.ok(took < 60_000, `approve --wait took ${took} ms`);
    assert.match(
      failed.stderr,
      new RegExp(
        `^error: Revision ${revisions.v120} failed: HealthFailure: Deployment/shop/web is Degraded: deployment exceeded its progress deadline.*; root cause CrashLoopBackOff: Pod/web-\\w+-\\w+: container app: back-off`,
        "m",
      ),
    );
    // What the rollout waited for on the way, then nothing of wave 1: its ConfigMap still says 1.1.0.
    assert.match(failed.stderr, /Applying: waiting for Deployment\/shop\/web: Progressing/);
    const after = await get<{ data: { version: string } }>(`/api/v1/namespaces/${NS}/configmaps/web-after`);
    assert.equal(after.data.version, "1.1.0");

    const rev = await revision(revisions.v120);
    assert.equal(rev.status?.failure?.reason, "HealthFailure");
    // Failed once: one Event and one notification, not one per reconcile.
    const events = await listEvents(admin, { ...rev, apiVersion: API_VERSION, kind: "Revision" });
    const failures = events.filter((e) => e.reason === "HealthFailure");
    assert.deepEqual(failures.map((e) => e.count ?? 1), [1]);
    await until("the Failed notification", () => Promise.resolve(notified.length || undefined));
    await new Promise((r) => setTimeout(r, 2_000)); // time for a second one, were there any
    assert.deepEqual(notified.map((n) => `${n.event} ${n.revision}`), [`Failed ${revisions.v120}`]);

    // Status tells the truth: Ready False with the reason, and the cluster no longer matches 1.1.0.
    const r = await ready("web");
    assert.equal(r?.status, "False");
    assert.equal(r?.reason, "HealthFailure");
    assert.match(
      r!.message!,
      new RegExp(`what it applied is live beside the rest of Revision ${revisions.v110}`),
    );
    assert.equal((await drifted("web"))?.reason, "RolloutFailed");
    const got = await gitsync("get", "web");
    assert.match(got.stdout, /^Failure: +HealthFailure: Deployment\/shop\/web is Degraded/m);
    const diagnosed = await gitsync("diagnose", "web");
    assert.equal(diagnosed.code, 0, diagnosed.stderr);
    assert.match(
      diagnosed.stdout,
      new RegExp(`^Revision ${revisions.v120} \\(Failed\\) failed: HealthFailure: `, "m"),
    );
    assert.match(diagnosed.stdout, /^CrashLoopBackOff {2}Deployment\/web → ReplicaSet\/web-\w+ → Pod\/web-/m);

    // Approving it again is no use, and says why.
    const again = await gitsync("approve", "web", "--yes");
    assert.equal(again.code, 1);
    assert.match(again.stderr, new RegExp(`^error: Revision ${revisions.v120} failed: HealthFailure: `, "m"));
    assert.match(again.stderr, /^there is nothing to approve: fix the cause, then gitsync retry web/m);
    // Nor by hand: the webhook refuses it the same way, and nothing is recorded.
    const before = (await app("web")).metadata!.annotations!;
    assert.match(
      (await handApprove("web", revisions.v120)) ?? "admitted",
      new RegExp(`Revision ${revisions.v120} failed: HealthFailure: there is nothing to approve`),
    );
    assert.deepEqual((await app("web")).metadata!.annotations, before);
  });

  it("rollback lands on the last good Revision (1.1.0), --to-revision on an older one; bad targets are refused", async () => {
    const back = await gitsync("rollback", "web", "--wait", "--timeout", "90s", "-o", "json");
    assert.equal(back.code, 0, back.stdout + back.stderr);
    assert.equal(JSON.parse(back.stdout).revision, revisions.v110);
    assert.equal(await image(), "registry.example/web:1.1.0");
    let a = await app("web");
    assert.equal(a.status?.deployedRevision, revisions.v110);
    assert.equal((await ready("web"))?.reason, "RolledBack");
    assert.equal((await drifted("web"))?.status, "False");

    for (
      const [target, refusal] of [
        ["nope", "Revision nope does not exist in namespace shop"],
        [revisions.v120!, `Revision ${revisions.v120} never rolled out Healthy (it is Failed)`],
        [revisions.v110!, `Revision ${revisions.v110} is what Application web runs already`],
      ]
    ) {
      const refused = await gitsync("rollback", "web", "--to-revision", target!);
      assert.equal(refused.code, 1, refused.stderr);
      assert.match(refused.stderr, new RegExp(`^error: cannot roll back: ${escape(refusal!)}`));
    }
    const explicit = await gitsync(
      "rollback",
      "web",
      "--to-revision",
      revisions.v100!,
      "--wait",
      "--timeout",
      "90s",
    );
    assert.equal(explicit.code, 0, explicit.stderr);
    assert.equal(await image(), "registry.example/web:1.0.0");
    a = await app("web");
    assert.equal(a.status?.deployedRevision, revisions.v100);
    // The failed Revision keeps its outcome in history.
    const history = JSON.parse((await gitsync("history", "web", "-o", "json")).stdout).items as {
      revision: string;
      phase: string;
      reason?: string;
    }[];
    assert.deepEqual(history.find((i) => i.revision === revisions.v120), {
      ...history.find((i) => i.revision === revisions.v120),
      phase: "Failed",
      reason: "HealthFailure",
    });
  });

  it("an image that cannot be pulled fails its Revision the same way", async () => {
    await createApplication("pull", {
      serviceAccountName: "deployer",
      source: { repositoryRef: { name: "shop" }, path: "pull" },
    });
    await desiredIn("pull", "AwaitingApproval");
    const failed = await gitsync("approve", "pull", "--yes", "--wait", "--timeout", "5m");
    assert.equal(failed.code, 1, failed.stdout + failed.stderr);
    assert.match(
      failed.stderr,
      /^error: Revision pull-\w+ failed: HealthFailure: Deployment\/shop\/pull is Degraded: .*; root cause ImagePullBackOff: Pod\/pull-\w+-\w+: container app: Back-off pulling image "registry.example\/pull:9.9.9"/m,
    );
    const r = await ready("pull");
    assert.equal(r?.reason, "HealthFailure");
    assert.match(r!.message!, /its rollout stopped part-way: what it applied is live$/);
  });

  it("a plan that changes nothing needs no approval: deployed without a rollout, and history says so", async () => {
    await createApplication("cfg", {
      serviceAccountName: "deployer",
      source: { repositoryRef: { name: "shop" }, path: "cfg" },
    });
    const planned = await desiredIn("cfg", "AwaitingApproval");
    assert.equal((await gitsync("approve", "cfg", "--yes", "--wait", "--timeout", "60s")).code, 0);
    // A commit that changes only another Application's files.
    await shop.commit({ "web/README.md": "web only\n" }, "touch web only");
    const synced = await gitsync("sync", "cfg", "--wait", "--timeout", "60s");
    assert.equal(synced.code, 0, synced.stderr);
    assert.match(
      synced.stdout,
      /^Revision cfg-\w+ is Healthy \(its plan changed nothing: no rollout was needed\)$/m,
    );
    const unchanged = await desiredIn("cfg", "Healthy", planned.metadata!.name);
    assert.equal(unchanged.status?.approval, undefined, "nobody approved it");
    assert.equal(unchanged.status?.startedAt, undefined, "no rollout ran");
    assert.equal(unchanged.status?.plan?.summary.unchanged, 1);
    assert.equal((await app("cfg")).status?.deployedRevision, unchanged.metadata!.name);
    assert.equal((await ready("cfg"))?.reason, "NoChanges");
    const history = await gitsync("history", "cfg");
    assert.match(
      history.stdout,
      new RegExp(
        `^${unchanged.metadata!.name} +[0-9a-f]{12} +Healthy \\(no changes\\) +desired,deployed `,
        "m",
      ),
    );
    // CI approving it anyway: it is deployed, nothing to do.
    const approve = await gitsync("approve", "cfg", "--yes", "--wait");
    assert.equal(approve.code, 0, approve.stderr);
    assert.match(approve.stdout, /is deployed and Healthy: nothing to approve/);
  });

  it("approve --wait exits 1 at once, naming the new digest, when the plan changed after the approval", async () => {
    await shop.commit({
      "cfg/settings.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg}\ndata: {mode: v2}\n",
    });
    const synced = await gitsync("sync", "cfg", "--wait", "--timeout", "60s", "-o", "json");
    assert.equal(synced.code, 0, synced.stderr);
    const reviewed = JSON.parse(synced.stdout).planDigest as string;
    // Someone changes the live object after the plan was made: at rollout start the plan differs.
    await admin.request({
      method: "PATCH",
      path: `/api/v1/namespaces/${NS}/configmaps/cfg`,
      contentType: "application/merge-patch+json",
      body: { data: { extra: "by hand" } },
    });
    const stale = await gitsync("approve", "cfg", "--digest", reviewed, "--wait", "--timeout", "5m");
    assert.equal(stale.code, 1, stale.stderr);
    const now = (await revision((await app("cfg")).status!.desiredRevision!)).status!.plan!.digest;
    assert.notEqual(now, reviewed);
    assert.match(
      stale.stderr,
      new RegExp(
        `^error: ApprovalStale: .* \\(approved ${reviewed}\\): it is now ${now} and needs a fresh approval`,
        "m",
      ),
    );
    assert.equal((await gitsync("approve", "cfg", "--digest", now, "--wait", "--timeout", "60s")).code, 0);
  });

  it("Revisions the Application stops wanting end Superseded and cannot be approved; a rollout says what it waits for and fails at spec.healthTimeout", async () => {
    await createApplication("edge", {
      serviceAccountName: "deployer",
      healthTimeout: "5m",
      source: { repositoryRef: { name: "edge" }, path: "edge" },
    });
    // Before its Repository has a commit, the Application says so; once it has, that no longer holds.
    await until(
      "edge: SourceNotReady",
      async () => (await ready("edge"))?.reason === "SourceNotReady" || undefined,
    );
    await createRepository("edge", edge);
    const a = (await desiredIn("edge", "AwaitingApproval")).metadata!.name!;
    assert.deepEqual(
      { ...(await ready("edge")), lastTransitionTime: undefined },
      {
        type: "Ready",
        status: "Unknown",
        reason: "Progressing",
        message: `Revision ${a} is not rolled out yet (gitsync get edge says where it is)`,
        lastTransitionTime: undefined,
      },
    );
    await edge.commit(lb("b"), "b");
    assert.equal((await gitsync("sync", "edge", "--wait", "--timeout", "60s")).code, 0);
    const b = (await app("edge")).status!.desiredRevision!;
    await until("a Superseded", async () => (await revision(a)).status?.phase === "Superseded" || undefined);
    const refused = await gitsync("approve", "edge", "--revision", a, "--yes");
    assert.equal(refused.code, 1);
    assert.match(
      refused.stderr,
      new RegExp(`^error: Revision ${a} is superseded: Application edge wants Revision ${b} now`),
    );
    assert.match(
      (await handApprove("edge", a)) ?? "admitted",
      new RegExp(`Revision ${a} is superseded: Application edge wants Revision ${b} now`),
    );

    assert.equal((await gitsync("approve", "edge", "--yes")).code, 0);
    const waitingFor = "Service/shop/lb: Progressing (waiting for the load balancer's address)";
    await until(
      "b waits for the load balancer",
      async () => (await revision(b)).status?.rollout?.waitingFor === waitingFor || undefined,
    );
    assert.match(
      (await gitsync("get", "edge")).stdout,
      new RegExp(`^Waiting for: +${escape(waitingFor)}$`, "m"),
    );
    assert.match(
      (await gitsync("revision", b)).stdout,
      new RegExp(`^Waiting for: +${escape(waitingFor)} \\(since `, "m"),
    );
    assert.match(
      (await gitsync("diagnose", "edge")).stdout,
      new RegExp(`^Revision ${b} \\(Applying\\) waits for ${escape(waitingFor)}$`, "m"),
    );
    assert.match(
      (await gitsync("logs", "edge")).stdout,
      new RegExp(`Waiting +Revision/${b} +group 0: waiting for ${escape(waitingFor)}`),
    );

    // A new commit while b rolls out: b ends Superseded too, never Applying forever.
    await edge.commit(lb("c"), "c");
    assert.equal((await gitsync("sync", "edge", "--wait", "--timeout", "60s")).code, 0);
    const c = (await app("edge")).status!.desiredRevision!;
    await until("b Superseded", async () => (await revision(b)).status?.phase === "Superseded" || undefined);
    const history = JSON.parse((await gitsync("history", "edge", "-o", "json")).stdout).items as {
      revision: string;
      phase: string;
    }[];
    // (Revisions created within the same second have no order between them.)
    assert.deepEqual(Object.fromEntries(history.map((i) => [i.revision, i.phase])), {
      [c]: "AwaitingApproval",
      [b]: "Superseded",
      [a]: "Superseded",
    });
    assert.equal(history[0]!.revision, c);

    // The LoadBalancer never gets an address: with a health timeout of 5 s, c fails at it.
    await admin.request({
      method: "PATCH",
      path: `${API}/applications/edge`,
      contentType: "application/merge-patch+json",
      body: { spec: { healthTimeout: "5s" } },
    });
    const failed = await gitsync("approve", "edge", "--yes", "--wait", "--timeout", "5m");
    assert.equal(failed.code, 1, failed.stderr);
    assert.match(
      failed.stderr,
      new RegExp(
        `^error: Revision ${c} failed: HealthFailure: ${
          escape(
            "Service/shop/lb is not Healthy after 5s (spec.healthTimeout): Progressing (waiting for the load balancer's address)",
          )
        }`,
        "m",
      ),
    );
  });

  it("apps says what failed, with the reason, for each kind of failure", async () => {
    const expected: Record<string, [string, string]> = {
      broken: ["False", "RenderFailure"],
      forbidden: ["False", "Forbidden"],
      nowhere: ["False", "ApplyFailure"],
      pull: ["False", "HealthFailure"],
      edge: ["False", "HealthFailure"],
      web: ["True", "RolledBack"],
      cfg: ["True", "RolloutComplete"],
    };
    await until("every failure recorded", async () => {
      for (const [name, [, reason]] of Object.entries(expected)) {
        if ((await ready(name))?.reason !== reason) return undefined;
      }
      return true;
    });
    const apps = await gitsync("apps", "-o", "wide");
    assert.equal(apps.code, 0, apps.stderr);
    for (const [name, [status, reason]] of Object.entries(expected)) {
      assert.match(apps.stdout, new RegExp(`^${name} .* ${status} +${reason} `, "m"), apps.stdout);
    }
    assert.match(
      apps.stdout,
      /^broken .* Revision broken-\w+ failed: .*bad\.yaml.*; nothing is deployed yet$/m,
    );
    assert.match(
      apps.stdout,
      /^forbidden .* system:serviceaccount:shop:deployer may not apply Secret\/shop\/not-mine/m,
    );
    assert.match(apps.stdout, /^nowhere .* ConfigMap\/gone\/lost: .*namespaces "gone" not found/m);
  });
});

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
