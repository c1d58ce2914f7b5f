/**
 * The Repository reconciler with its informer and work queue, against kube-apiserver and a real Git
 * server: the commit lands in status, a reconcile-requested-at stamp fetches at once, and credentials
 * from an unlabelled Secret or wrong ones show in the Ready condition without the secret.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { loadCrds } from "../../controller/gitsync/crds.ts";
import { repositoryReconciler } from "../../controller/gitsync/reconcilers/repository.ts";
import {
  Informer,
  installCrds,
  KubeClient,
  objectKey,
  runWorkers,
  WorkQueue,
} from "../../internal/k8s/mod.ts";
import { type GitHttpServer, type GitRepo, startGitHttpServer } from "../harness/git_server.ts";
import { type KubeApiServer, startKubeApiServer } from "../harness/k8s.ts";
import { startRegistry, type TestRegistry } from "../harness/registry.ts";
import { until as waitUntil } from "../harness/until.ts";
import { imagePolicyReconciler } from "../../controller/gitsync/reconcilers/image_policy.ts";
import { latestImages } from "../../controller/gitsync/images/latest_images.ts";
import {
  API_VERSION,
  type ImagePolicy,
  RECONCILE_REQUESTED_AT,
  type Repository,
} from "../../controller/gitsync/api/mod.ts";

const NS = "default";
const REPOS = `/apis/${API_VERSION}/namespaces/${NS}/repositories`;

describe("Repository reconciler", () => {
  let k8s: KubeApiServer;
  let client: KubeClient;
  let git: GitHttpServer;
  let repo: GitRepo;
  let cacheRoot: string;
  const stop = new AbortController();
  let workers: Promise<void>;
  let queue: WorkQueue<string>;
  let policyQueue: WorkQueue<string>;
  let registry: TestRegistry;

  const status = async (name: string) =>
    (await client.request<Repository>({ path: `${REPOS}/${name}` })).status;
  const until = <T>(what: string, probe: () => Promise<T | undefined>) =>
    waitUntil(what, probe, { ms: 20_000, intervalMs: 100 });
  const secret = (name: string, password: string, labelled: boolean) =>
    client.request({
      method: "POST",
      path: `/api/v1/namespaces/${NS}/secrets`,
      body: {
        metadata: { name, ...(labelled ? { labels: { "sync.gitsync.io/git-credentials": "true" } } : {}) },
        stringData: { username: "alice", password },
      },
    });
  const repository = (name: string, secretName: string) =>
    client.request({
      method: "POST",
      path: REPOS,
      body: {
        apiVersion: API_VERSION,
        kind: "Repository",
        metadata: { name },
        spec: {
          git: { url: repo.url, revision: "main", auth: { secretRef: { name: secretName } } },
          pollInterval: "1h",
        },
      },
    });

  before(async () => {
    [k8s, git, registry] = await Promise.all([
      startKubeApiServer(),
      startGitHttpServer({ users: { alice: "s3cret-pass" } }),
      startRegistry({ users: { robot: "registry-pass" } }),
    ]);
    client = KubeClient.fromKubeconfig({ path: k8s.kubeconfigPath });
    cacheRoot = await mkdtemp(join(tmpdir(), "gitsync-cache-"));
    await installCrds(client, await loadCrds(), { fieldManager: "test", timeoutMs: 30_000 });
    repo = await git.createRepo("shop", { "deploy/cm.yaml": "kind: ConfigMap\n" });
    const informer = new Informer<Repository>(client, { path: `/apis/${API_VERSION}/repositories` });
    const policies = new Informer<ImagePolicy>(client, { path: `/apis/${API_VERSION}/imagepolicies` });
    queue = new WorkQueue<string>();
    policyQueue = new WorkQueue<string>();
    informer.onEvent((e) => queue.add(objectKey(e.object)));
    // As the manager wires it: a policy's new image asks the namespace's write-back Repositories.
    policies.onEvent((e) => {
      policyQueue.add(objectKey(e.object));
      for (const r of informer.list()) if (r.spec.imageUpdate) queue.add(objectKey(r));
    });
    void informer.run(stop.signal);
    void policies.run(stop.signal);
    await Promise.all([informer.synced, policies.synced]);
    const reconcile = repositoryReconciler({
      client,
      get: (k) => informer.get(k),
      cacheRoot,
      latestImages: (ns) => latestImages(policies.list().filter((p) => p.metadata?.namespace === ns)),
    });
    workers = Promise.all([
      runWorkers(queue, 2, reconcile),
      runWorkers(policyQueue, 2, imagePolicyReconciler({ client, get: (k) => policies.get(k) })),
    ]).then(() => {});
  });
  after(async () => {
    stop.abort();
    queue?.shutDown();
    policyQueue?.shutDown();
    await workers;
    client?.close();
    await Promise.all([k8s?.stop(), git?.stop(), registry?.stop()]);
    if (cacheRoot) await rm(cacheRoot, { recursive: true, force: true });
  });

  it("records the fetched commit and Ready", async () => {
    await secret("shop-git", "s3cret-pass", true);
    await repository("shop", "shop-git");
    const s = await until(
      "an artifact",
      async () => (await status("shop"))?.artifact?.revision ? await status("shop") : undefined,
    );
    assert.match(s!.artifact!.revision!, /^[0-9a-f]{40}$/);
    assert.deepEqual(
      s!.conditions!.map((c) => `${c.type} ${c.status} ${c.reason}`),
      ["Ready True Succeeded", "ImagesUpdated False Disabled"],
    );
  });

  it("a reconcile-requested-at stamp fetches the new commit at once, despite a 1h poll interval", async () => {
    const commit = await repo.commit({ "deploy/cm.yaml": "kind: ConfigMap\ndata: {a: b}\n" });
    const stamp = new Date().toISOString();
    await client.request({
      method: "PATCH",
      path: `${REPOS}/shop`,
      contentType: "application/merge-patch+json",
      body: { metadata: { annotations: { [RECONCILE_REQUESTED_AT]: stamp } } },
    });
    const s = await until("the new commit", async () => {
      const st = await status("shop");
      return st?.artifact?.revision === commit ? st : undefined;
    });
    assert.equal(s.lastHandledReconcileAt, stamp);
  });

  it("an unlabelled Secret is not used: Ready False naming the label", async () => {
    await secret("loose", "s3cret-pass", false);
    await repository("loose", "loose");
    const s = await until(
      "a condition",
      async () => (await status("loose"))?.conditions?.length ? await status("loose") : undefined,
    );
    assert.deepEqual(s.conditions!.map((c) => `${c.type} ${c.status} ${c.reason}`), [
      "Ready False AuthenticationFailure",
      "ImagesUpdated False Disabled",
    ]);
    assert.match(
      s.conditions![0]!.message!,
      /Secret default\/loose is not labelled sync.gitsync.io\/git-credentials=true/,
    );
    assert.equal(s.artifact, undefined);
  });

  it("wrong credentials: Ready False, AuthenticationFailure, and the password appears nowhere", async () => {
    await secret("wrong", "not-the-password-42", true);
    await repository("wrong", "wrong");
    const s = await until(
      "a condition",
      async () => (await status("wrong"))?.conditions?.length ? await status("wrong") : undefined,
    );
    assert.equal(s.conditions![0]!.reason, "AuthenticationFailure");
    assert.doesNotMatch(JSON.stringify(s), /not-the-password-42|s3cret/);
  });

  it("image automation: a policy scans the registry and the Repository pushes the marked values back", async () => {
    const image = `${registry.host}/team/web`;
    const digests: Record<string, string> = {};
    for (const tag of ["1.0.0", "1.1.0", "2.0.0"]) digests[tag] = await registry.pushImage("team/web", tag);
    const deployment = (ref: string) =>
      `kind: Deployment\nspec:\n  containers:\n    - image: ${ref} # {"$imagepolicy": "default:web"}\n`;
    const images = await git.createRepo("images", { "deploy/web.yaml": deployment(`${image}:1.0.0`) });
    await client.request({
      method: "POST",
      path: `/api/v1/namespaces/${NS}/secrets`,
      body: {
        metadata: { name: "registry", labels: { "sync.gitsync.io/registry-credentials": "true" } },
        type: "kubernetes.io/dockerconfigjson",
        stringData: {
          ".dockerconfigjson": JSON.stringify({
            auths: { [registry.host]: { username: "robot", password: "registry-pass" } },
          }),
        },
      },
    });
    const POLICIES = `/apis/${API_VERSION}/namespaces/${NS}/imagepolicies`;
    await client.request({
      method: "POST",
      path: POLICIES,
      body: {
        apiVersion: API_VERSION,
        kind: "ImagePolicy",
        metadata: { name: "web" },
        spec: {
          image,
          secretRef: { name: "registry" },
          interval: "1h",
          policy: { semver: { range: ">=1.0.0 <2.0.0" } },
        },
      },
    });
    const policy = async () => (await client.request<ImagePolicy>({ path: `${POLICIES}/web` })).status;
    const p = await until("a scan", async () => (await policy())?.latestTag ? await policy() : undefined);
    assert.equal(p!.latestImage, `${image}:1.1.0@${digests["1.1.0"]}`);
    assert.equal(p!.conditions?.find((c) => c.type === "Ready")?.status, "True");

    await client.request({
      method: "POST",
      path: REPOS,
      body: {
        apiVersion: API_VERSION,
        kind: "Repository",
        metadata: { name: "images" },
        spec: {
          git: { url: images.url, revision: "main", auth: { secretRef: { name: "shop-git" } } },
          pollInterval: "1h",
          imageUpdate: { secretRef: { name: "shop-git" }, path: "deploy" },
        },
      },
    });
    const pushed = await until("a write-back", async () => {
      const st = await status("images");
      const c = st?.conditions?.find((x) => x.type === "ImagesUpdated");
      return c?.reason === "Pushed" ? st : undefined;
    });
    assert.equal(await images.show("deploy/web.yaml"), deployment(`${image}:1.1.0@${digests["1.1.0"]}`));
    // The fetch after the push already follows the pushed commit.
    assert.equal(pushed.artifact?.revision, await images.head());
    assert.equal(pushed.imageUpdate?.lastPushedCommit, await images.head());

    // A registry push event (the receiver stamps the policy): rescan at once, write back again.
    digests["1.2.0"] = await registry.pushImage("team/web", "1.2.0");
    await client.request({
      method: "PATCH",
      path: `${POLICIES}/web`,
      contentType: "application/merge-patch+json",
      body: { metadata: { annotations: { [RECONCILE_REQUESTED_AT]: new Date().toISOString() } } },
    });
    await until(
      "the second write-back",
      async () => (await images.show("deploy/web.yaml")).includes("1.2.0@") ? true : undefined,
    );
    assert.equal(await images.show("deploy/web.yaml"), deployment(`${image}:1.2.0@${digests["1.2.0"]}`));

    // A policy whose Secret is not labelled for registry use: Ready False, nothing scanned.
    await client.request({
      method: "POST",
      path: POLICIES,
      body: {
        apiVersion: API_VERSION,
        kind: "ImagePolicy",
        metadata: { name: "unlabelled" },
        spec: { image, secretRef: { name: "shop-git" }, policy: { digest: { tag: "1.0.0" } } },
      },
    });
    const refused = await until("a refusal", async () => {
      const st = (await client.request<ImagePolicy>({ path: `${POLICIES}/unlabelled` })).status;
      return st?.conditions?.length ? st : undefined;
    });
    assert.deepEqual(refused.conditions!.map((c) => `${c.status} ${c.reason}`), [
      "False AuthenticationFailure",
    ]);
    assert.match(refused.conditions![0]!.message!, /not labelled sync.gitsync.io\/registry-credentials=true/);
    assert.equal(refused.latestImage, undefined);
  });
});
