/**
 * The gitsync web console in Chromium against a real kube-apiserver, in token mode and in OIDC mode
 * (against a local OIDC provider speaking the protocol). Applications, Repositories and Revisions are
 * created directly with their status (no manager runs). Every page is visited and photographed
 * (test-artifacts/screenshots/console-*.png); the sign-in refusals, the session's end at a 401, the
 * cookie's attributes, the CSP and the cross-site POST refusal are checked from outside.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Browser, Page } from "playwright-core";
import { consoleApp } from "../../controller/gitsync/console/app.ts";
import { ConsoleKubeClient } from "../../controller/gitsync/console/console_kube_client.ts";
import { CONSOLE_CSP, loadConsoleBundle } from "../../controller/gitsync/console/page.ts";
import { loadCrds } from "../../controller/gitsync/crds.ts";
import { type RunningServer, serve } from "../../internal/http/mod.ts";
import { freePort } from "../harness/ports.ts";
import { installCrds, isKubeApiError, KubeClient, loadKubeconfig } from "../../internal/k8s/mod.ts";
import { silentLogger } from "../../internal/log/mod.ts";
import { OidcClient } from "../../internal/oidc/mod.ts";
import { bundleWebApp } from "../../scripts/lib/web_bundle.ts";
import { ROOT } from "../harness/binary.ts";
import { browserSkipReason, launchBrowser, watchedPage } from "../harness/browser.ts";
import { checkScreens } from "../harness/screens.ts";
import { type KubeApiServer, startKubeApiServer } from "../harness/k8s.ts";
import { createNamespace } from "../harness/k8s_fixtures.ts";
import { type OidcProvider, startOidcProvider } from "../harness/oidc_provider.ts";

const NS = "shop";
const G = "/apis/sync.gitsync.io/v1alpha1/namespaces/shop";
const SHA = "4f9c2a1b7d3e5f60718293a4b5c6d7e8f9012345";
const OLD_SHA = "0a1b2c3d4e5f60718293a4b5c6d7e8f901234567";
const KEY = new Uint8Array(32).fill(42);
const skip = browserSkipReason();

async function create(admin: KubeClient, path: string, body: Record<string, unknown>, status?: unknown) {
  const created = await admin.request<{ metadata: { name: string; resourceVersion: string } }>({
    method: "POST",
    path,
    body,
  });
  if (status) {
    await admin.request({
      method: "PUT",
      path: `${path}/${created.metadata.name}/status`,
      body: { ...body, metadata: created.metadata, status },
    });
  }
}

async function fixtures(admin: KubeClient) {
  await createNamespace(admin, NS);
  const ready = (reason: string, message: string, status = "True") => ({
    type: "Ready",
    status,
    reason,
    message,
    lastTransitionTime: "2026-11-25T09:00:00Z",
  });
  await create(admin, `${G}/repositories`, {
    apiVersion: "sync.gitsync.io/v1alpha1",
    kind: "Repository",
    metadata: { name: "app-repo" },
    spec: { git: { url: "https://git.example.test/shop/app.git", revision: "main" } },
  }, { artifact: { revision: SHA }, conditions: [ready("Succeeded", `fetched ${SHA.slice(0, 12)}`)] });
  await create(admin, `${G}/applications`, {
    apiVersion: "sync.gitsync.io/v1alpha1",
    kind: "Application",
    metadata: { name: "web" },
    spec: { serviceAccountName: "deployer", source: { repositoryRef: { name: "app-repo" }, path: "deploy" } },
  }, {
    sourceRevision: SHA,
    desiredRevision: "web-4f9c2a1b7d3e",
    deployedRevision: "web-0a1b2c3d4e5f",
    managedKinds: [
      { group: "apps", version: "v1", kind: "Deployment", namespaced: true },
      { group: "", version: "v1", kind: "ConfigMap", namespaced: true },
      { group: "", version: "v1", kind: "Secret", namespaced: true },
    ],
    // While the desired Revision waits for approval the controller reports Ready Unknown (status truth).
    conditions: [
      ready(
        "Progressing",
        "Revision web-4f9c2a1b7d3e is not rolled out yet (gitsync get web says where it is)",
        "Unknown",
      ),
    ],
  });
  const labels = { "sync.gitsync.io/application": "web" };
  const revision = (name: string, sha: string) => ({
    apiVersion: "sync.gitsync.io/v1alpha1",
    kind: "Revision",
    metadata: { name, labels },
    spec: { applicationRef: { name: "web" }, sourceRevision: sha, serviceAccountName: "deployer" },
  });
  await create(admin, `${G}/revisions`, revision("web-4f9c2a1b7d3e", SHA), {
    phase: "AwaitingApproval",
    plan: {
      digest: "sha256:1f2e3d4c5b6a",
      desiredStateHash: "sha256:99",
      truncated: false,
      summary: { create: 1, update: 1, unchanged: 0, prune: 0, pruneSkipped: 0 },
      entries: [
        {
          action: "update",
          apiVersion: "apps/v1",
          kind: "Deployment",
          namespace: NS,
          name: "web",
          diff: "--- live\n+++ desired\n-  replicas: 2\n+  replicas: 3\n",
        },
        {
          action: "create",
          apiVersion: "v1",
          kind: "ConfigMap",
          namespace: NS,
          name: "web-config",
          diff: "+data:\n+  DATABASE_URL: postgres://REDACTED@db:5432/shop\n",
        },
      ],
    },
  });
  await create(admin, `${G}/revisions`, revision("web-0a1b2c3d4e5f", OLD_SHA), {
    phase: "Failed",
    approval: {
      approvedBy: "alice@example.test",
      approvedAt: "2026-11-24T10:00:00Z",
      planDigest: "sha256:0ld",
    },
    hooks: [{
      kind: "Job",
      namespace: NS,
      name: "migrate",
      stage: "pre-sync",
      state: "Failed",
      rollout: 1,
      message: "BackoffLimitExceeded",
    }],
    failure: { reason: "HookFailed", message: "pre-sync hook Job/migrate failed" },
    diagnosis: {
      diagnosedAt: "2026-11-24T10:05:00Z",
      firstRootCause: {
        reason: "ImagePullBackOff",
        message: 'Back-off pulling image "registry.example.test/migrate:9"',
        resource: { apiVersion: "v1", kind: "Pod", namespace: NS, name: "migrate-x7k2p" },
      },
      causes: [{
        reason: "ImagePullBackOff",
        message: 'Back-off pulling image "registry.example.test/migrate:9"',
        chain: [
          { apiVersion: "batch/v1", kind: "Job", namespace: NS, name: "migrate" },
          { apiVersion: "v1", kind: "Pod", namespace: NS, name: "migrate-x7k2p" },
        ],
      }],
    },
  });
  // Two more Applications: one deployed and Healthy, one whose Revision failed its health check.
  const app = (name: string) => ({
    apiVersion: "sync.gitsync.io/v1alpha1",
    kind: "Application",
    metadata: { name },
    spec: { serviceAccountName: "deployer", source: { repositoryRef: { name: "app-repo" }, path: name } },
  });
  await create(admin, `${G}/applications`, app("api"), {
    sourceRevision: SHA,
    desiredRevision: "api-4f9c2a1b7d3e",
    deployedRevision: "api-4f9c2a1b7d3e",
    conditions: [ready("RolloutComplete", "Revision api-4f9c2a1b7d3e is deployed and Healthy")],
  });
  await create(admin, `${G}/applications`, app("worker"), {
    sourceRevision: SHA,
    desiredRevision: "worker-4f9c2a1b7d3e",
    deployedRevision: "worker-0a1b2c3d4e5f",
    conditions: [ready(
      "HealthFailure",
      "Revision worker-4f9c2a1b7d3e failed: Deployment/shop/worker is not Healthy after 5m; Revision worker-0a1b2c3d4e5f is still what runs",
      "False",
    )],
  });
  await create(admin, `${G}/revisions`, {
    ...revision("worker-4f9c2a1b7d3e", SHA),
    metadata: { name: "worker-4f9c2a1b7d3e", labels: { "sync.gitsync.io/application": "worker" } },
    spec: { applicationRef: { name: "worker" }, sourceRevision: SHA, serviceAccountName: "deployer" },
  }, {
    phase: "Failed",
    failure: {
      reason: "HealthFailure",
      message: "Deployment/shop/worker is not Healthy after 5m: CrashLoopBackOff",
    },
  });
  // Live objects for the graph, and a Secret the console must never read.
  await admin.request({
    method: "POST",
    path: `/apis/apps/v1/namespaces/${NS}/deployments`,
    body: {
      metadata: { name: "web", labels },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: "web" } },
        template: {
          metadata: { labels: { app: "web" } },
          spec: { containers: [{ name: "web", image: "nginx" }] },
        },
      },
    },
  });
  await admin.request({
    method: "POST",
    path: `/api/v1/namespaces/${NS}/configmaps`,
    body: { metadata: { name: "web-config", labels }, data: { MODE: "prod" } },
  });
  await admin.request({
    method: "POST",
    path: `/api/v1/namespaces/${NS}/secrets`,
    body: { metadata: { name: "db", labels }, stringData: { password: "hunter2-never-shown" } },
  });
  // Readers: gitsync's kinds cluster-wide, the workloads of the namespace; for the viewer service
  // account (token mode) and the group shop-team (OIDC mode).
  const rbac = "/apis/rbac.authorization.k8s.io/v1";
  await admin.request({
    method: "POST",
    path: `${rbac}/clusterroles`,
    body: {
      metadata: { name: "gitsync-viewer" },
      rules: [{
        apiGroups: ["sync.gitsync.io"],
        resources: ["applications", "revisions", "repositories"],
        verbs: ["get", "list"],
      }],
    },
  });
  await admin.request({
    method: "POST",
    path: `${rbac}/namespaces/${NS}/roles`,
    body: {
      metadata: { name: "workload-viewer" },
      rules: [
        { apiGroups: ["apps"], resources: ["deployments", "replicasets"], verbs: ["get", "list"] },
        { apiGroups: [""], resources: ["configmaps", "pods", "secrets"], verbs: ["get", "list"] },
        { apiGroups: ["batch"], resources: ["jobs"], verbs: ["get", "list"] },
      ],
    },
  });
  const subjects = [
    { kind: "ServiceAccount", name: "viewer", namespace: NS },
    { kind: "Group", apiGroup: "rbac.authorization.k8s.io", name: "shop-team" },
  ];
  await admin.request({
    method: "POST",
    path: `${rbac}/clusterrolebindings`,
    body: {
      metadata: { name: "gitsync-viewer" },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "gitsync-viewer" },
      subjects,
    },
  });
  await admin.request({
    method: "POST",
    path: `${rbac}/namespaces/${NS}/rolebindings`,
    body: {
      metadata: { name: "workload-viewer" },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "workload-viewer" },
      subjects,
    },
  });
}

async function serviceAccountToken(admin: KubeClient, name: string): Promise<string> {
  try {
    await admin.request({
      method: "POST",
      path: `/api/v1/namespaces/${NS}/serviceaccounts`,
      body: { metadata: { name } },
    });
  } catch { /* exists */ }
  const res = await admin.request<{ status: { token: string } }>({
    method: "POST",
    path: `/api/v1/namespaces/${NS}/serviceaccounts/${name}/token`,
    body: { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: { expirationSeconds: 3600 } },
  });
  return res.status.token;
}

describe("gitsync console", { skip: skip ?? false }, () => {
  let k8s: KubeApiServer;
  let admin: KubeClient;
  let browser: Browser;
  let tokenConsole: RunningServer;
  let oidcConsole: RunningServer;
  let idp: OidcProvider;
  /** Moves the token console's clock, to reach the 8-hour cap. */
  let skewMs = 0;
  let bundleDir = "";

  before(async () => {
    bundleDir = mkdtempSync(join(tmpdir(), "console-bundle-"));
    await bundleWebApp(ROOT, "gitsync", bundleDir);
    const bundle = await loadConsoleBundle(bundleDir);
    assert.ok(bundle, "the console bundle was built");
    [k8s, browser] = await Promise.all([startKubeApiServer(), launchBrowser()]);
    admin = KubeClient.fromKubeconfig({ path: k8s.kubeconfigPath });
    await installCrds(admin, await loadCrds(), { fieldManager: "test", timeoutMs: 30_000 });
    await fixtures(admin);
    const config = loadKubeconfig({ path: k8s.kubeconfigPath });

    const tokenPort = await freePort();
    tokenConsole = serve(
      consoleApp({
        log: silentLogger,
        cluster: config.cluster,
        sessionKey: KEY,
        bundle,
        now: () => Date.now() + skewMs,
      }),
      { hostname: "127.0.0.1", port: tokenPort, log: silentLogger, handleSignals: false },
    );

    const oidcPort = await freePort();
    const redirectUrl = `http://127.0.0.1:${oidcPort}/auth/oidc/callback`;
    idp = await startOidcProvider({
      clientId: "gitsync-console",
      clientSecret: "console-secret",
      redirectUris: [redirectUrl],
    });
    const client = await OidcClient.discover({
      issuer: idp.issuer,
      clientId: "gitsync-console",
      clientSecret: "console-secret",
      redirectUrl,
    });
    oidcConsole = serve(
      consoleApp({
        log: silentLogger,
        cluster: config.cluster,
        sessionKey: KEY,
        bundle,
        // The admin kubeconfig stands in for the console's service account, which may impersonate.
        oidc: { client, serviceConfig: config, usernameClaim: "email", groupsClaim: "groups" },
      }),
      { hostname: "127.0.0.1", port: oidcPort, log: silentLogger, handleSignals: false },
    );
  });

  after(async () => {
    await browser?.close();
    await tokenConsole?.stop();
    await oidcConsole?.stop();
    await idp?.stop();
    admin?.close();
    await k8s?.stop();
    if (bundleDir) rmSync(bundleDir, { recursive: true, force: true });
  });

  const post = (base: string, path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${base}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", "sec-fetch-site": "same-origin", ...headers },
      body: JSON.stringify(body),
    });

  it("token mode: every page in Chromium, signed in with a service account's token", async () => {
    const token = await serviceAccountToken(admin, "viewer");
    const w = await watchedPage(browser, tokenConsole.url);
    const { page } = w;
    w.expectHttpError("/api/session", 401);
    await page.goto("/");
    await page.getByLabel("Kubernetes bearer token").waitFor();
    await w.screenshot("console-token-sign-in");
    await page.getByLabel("Kubernetes bearer token").fill(token);
    await page.getByRole("button", { name: "Sign in" }).click();

    await page.getByRole("heading", { name: "Applications" }).waitFor();
    await page.getByRole("link", { name: "web" }).waitFor();
    // Badges are coloured by Ready's status, one meaning in every app; while Ready is Unknown the
    // desired Revision's phase says more (web waits for approval). That phase is read after the row is
    // shown: wait for it before reading the table.
    const readyBadge = (name: string) =>
      page.locator("tbody tr").filter({ has: page.getByRole("link", { name, exact: true }) }).locator(
        ".badge",
      );
    await readyBadge("web").filter({ hasText: "AwaitingApproval" }).waitFor();
    assert.match(
      await page.locator("table").innerText(),
      /AwaitingApproval[\s\S]*app-repo[\s\S]*4f9c2a1b7d3e/,
    );
    assert.match(await page.locator("header").innerText(), /system:serviceaccount:shop:viewer/);
    assert.match(await readyBadge("web").getAttribute("class") ?? "", /badge-warn/);
    assert.equal(await readyBadge("api").innerText(), "Ready");
    assert.match(await readyBadge("api").getAttribute("class") ?? "", /badge-ok/);
    assert.equal(await readyBadge("worker").innerText(), "HealthFailure");
    assert.match(await readyBadge("worker").getAttribute("class") ?? "", /badge-danger/);
    await w.screenshot("console-token-applications");

    const cookies = await w.context.cookies();
    const session = cookies.filter((c) => c.name.startsWith("gitsync_session."));
    assert.ok(session.length >= 1);
    for (const c of session) {
      assert.equal(c.httpOnly, true);
      assert.equal(c.secure, true);
      assert.equal(c.sameSite, "Lax");
      assert.ok(!c.value.includes(token.slice(0, 40)), "the token is not readable in the cookie");
    }
    assert.equal(await page.evaluate("document.cookie"), "", "scripts cannot read the session");

    await page.getByRole("link", { name: "web", exact: true }).click();
    await page.getByRole("heading", { name: "Application shop/web" }).waitFor();
    await page.getByRole("link", { name: "web-4f9c2a1b7d3e" }).first().waitFor();
    // It waits for approval: the page says so and the command is one click from the clipboard.
    const standing = page.getByTestId("standing");
    await standing.getByText("AwaitingApproval").waitFor();
    const command = "gitsync approve web -n shop --digest sha256:1f2e3d4c5b6a";
    assert.match(await standing.innerText(), new RegExp(command.replaceAll(".", "\\.")));
    await w.context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: tokenConsole.url });
    await standing.getByRole("button", { name: "Copy the approve command" }).click();
    await standing.getByText("Copied.").waitFor();
    assert.equal(await page.evaluate("navigator.clipboard.readText()"), command);
    assert.match(await page.locator("main").innerText(), /web-0a1b2c3d4e5f[\s\S]*Failed/);
    await w.screenshot("console-token-application");

    await page.getByRole("table").getByRole("link", { name: "web-4f9c2a1b7d3e" }).click();
    await page.getByRole("heading", { name: "Revision shop/web-4f9c2a1b7d3e" }).waitFor();
    const pending = await page.locator("main").innerText();
    assert.match(pending, /sha256:1f2e3d4c5b6a: 1 to create, 1 to update/);
    assert.match(pending, /\+ {2}replicas: 3/);
    assert.match(pending, /postgres:\/\/REDACTED@db/);
    assert.match(
      pending,
      /Not approved\. Approve with:\s+gitsync approve web -n shop --digest sha256:1f2e3d4c5b6a/,
    );
    await w.screenshot("console-token-revision-plan");

    await page.goBack();
    await page.getByRole("link", { name: "web-0a1b2c3d4e5f" }).click();
    await page.getByRole("heading", { name: "Revision shop/web-0a1b2c3d4e5f" }).waitFor();
    const failed = await page.locator("main").innerText();
    assert.match(failed, /HookFailed: pre-sync hook Job\/migrate failed/);
    assert.match(failed, /Approved by alice@example.test/);
    assert.match(failed, /pre-sync\s+Job\/migrate\s+Failed/);
    assert.match(failed, /First root cause: ImagePullBackOff on Pod\/shop\/migrate-x7k2p/);
    assert.match(failed, /Job\/shop\/migrate → Pod\/shop\/migrate-x7k2p/);
    await w.screenshot("console-token-revision-diagnosis");

    // A failed Application's page says why, from its Revision, not only on the Revision's page.
    await page.goto("/ui/apps/shop/worker");
    const failedApp = page.getByTestId("standing");
    await failedApp.getByRole("alert").getByText("CrashLoopBackOff", { exact: false }).waitFor();
    assert.match(
      await failedApp.innerText(),
      /HealthFailure[\s\S]*worker-4f9c2a1b7d3e failed: HealthFailure/,
    );
    await w.screenshot("console-token-application-failed");

    await page.goto("/ui/apps/shop/web/graph");
    await page.getByRole("heading", { name: "Resource graph of shop/web" }).waitFor();
    await page.getByText("Secrets are left out").waitFor();
    const graph = await page.locator("main").innerText();
    assert.match(graph, /Deployment web/);
    assert.match(graph, /ConfigMap web-config/);
    assert.match(graph, /Secrets are left out: the console never reads them/);
    assert.doesNotMatch(graph, /You may not list/);
    assert.doesNotMatch(graph, /hunter2|ConfigMap db|Secret db/);
    await w.screenshot("console-token-graph");

    await page.getByRole("link", { name: "Repositories" }).click();
    await page.getByRole("heading", { name: "Repositories" }).waitFor();
    await page.getByText("https://git.example.test/shop/app.git").waitFor();
    await w.screenshot("console-token-repositories");

    await page.getByLabel("Namespace").fill("elsewhere");
    await page.getByRole("button", { name: "Show" }).click();
    await page.getByText("No Repositories you may see.").waitFor();
    assert.match(page.url(), /namespace=elsewhere/);

    // Sign-out clears the cookie only.
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByLabel("Kubernetes bearer token").waitFor();
    assert.deepEqual((await w.context.cookies()).filter((c) => c.value !== ""), []);
    w.assertClean();
    await w.context.close();
  });

  it("every screen at 1280 and 390 px: no sideways scroll, no console error, no serious axe violation", async () => {
    const token = await serviceAccountToken(admin, "viewer");
    const page = (path: string, heading: string) => async (p: Page) => {
      await p.goto(path);
      await p.getByRole("heading", { level: 1, name: heading }).waitFor();
      await p.locator(".loading").waitFor({ state: "detached" });
    };
    await checkScreens(browser, tokenConsole.url, "gitsync", [
      {
        name: "sign-in",
        open: async (p) => {
          await p.goto("/");
          await p.getByLabel("Kubernetes bearer token").waitFor();
        },
      },
      {
        name: "applications",
        open: async (p) => {
          await p.getByLabel("Kubernetes bearer token").fill(token);
          await p.getByRole("button", { name: "Sign in" }).click();
          await p.getByRole("heading", { name: "Applications" }).waitFor();
          await p.locator("tbody .badge").filter({ hasText: "AwaitingApproval" }).waitFor();
        },
      },
      { name: "application", open: page("/ui/apps/shop/web", "Application shop/web") },
      { name: "application-failed", open: page("/ui/apps/shop/worker", "Application shop/worker") },
      {
        name: "revision",
        open: page("/ui/revisions/shop/web-4f9c2a1b7d3e", "Revision shop/web-4f9c2a1b7d3e"),
      },
      {
        name: "revision-failed",
        open: page("/ui/revisions/shop/web-0a1b2c3d4e5f", "Revision shop/web-0a1b2c3d4e5f"),
      },
      { name: "graph", open: page("/ui/apps/shop/web/graph", "Resource graph of shop/web") },
      { name: "repositories", open: page("/ui/repos", "Repositories") },
    ], {
      // The first screen is the sign-in page: /api/session answers 401 there, on purpose.
      prepare: (w) => Promise.resolve(w.expectHttpError("/api/session", 401)),
    });
  });

  it("token mode: a 401 from the API server ends the session", async () => {
    const token = await serviceAccountToken(admin, "short-lived");
    await admin.request({
      method: "POST",
      path: `/apis/rbac.authorization.k8s.io/v1/clusterrolebindings`,
      body: {
        metadata: { name: "short-lived" },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "gitsync-viewer" },
        subjects: [{ kind: "ServiceAccount", name: "short-lived", namespace: NS }],
      },
    });
    const w = await watchedPage(browser, tokenConsole.url);
    const { page } = w;
    w.expectHttpError("/api/session", 401);
    await page.goto("/ui/repos");
    await page.getByLabel("Kubernetes bearer token").fill(token);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByText("https://git.example.test/shop/app.git").waitFor();
    // Deleting the service account invalidates its token: the next read is a 401.
    await admin.request({ method: "DELETE", path: `/api/v1/namespaces/${NS}/serviceaccounts/short-lived` });
    // The API server caches a token's authentication for a few seconds: wait until it refuses it.
    const probe = ConsoleKubeClient.forToken(loadKubeconfig({ path: k8s.kubeconfigPath }).cluster, token);
    try {
      for (let i = 0;; i++) {
        try {
          await probe.request({ path: "/apis/sync.gitsync.io/v1alpha1/applications" });
        } catch (err) {
          if (isKubeApiError(err, 401)) break;
          throw err;
        }
        assert.ok(i < 60, "the API server still accepts the deleted account's token after 30 s");
        await new Promise((r) => setTimeout(r, 500));
      }
    } finally {
      probe.close();
    }
    w.expectHttpError("/api/applications", 401);
    await page.getByRole("link", { name: "Applications" }).click();
    await page.getByRole("alert").filter({ hasText: "session ended" }).waitFor();
    await page.getByLabel("Kubernetes bearer token").waitFor();
    assert.deepEqual((await w.context.cookies()).filter((c) => c.value !== ""), []);
    await w.screenshot("console-token-session-ended");
    w.assertClean();
    await w.context.close();
  });

  it("token mode: sign-in refusals (16 KiB, expired, rejected), the 8-hour cap, CSP, cross-site POST", async () => {
    const base = tokenConsole.url;
    const refused = async (token: string, reason: RegExp) => {
      const res = await post(base, "/auth/token", { token });
      assert.equal(res.status, 401);
      const body = await res.json();
      assert.match(body.error, reason);
      assert.equal(res.headers.get("set-cookie"), null, "a refused sign-in sets no cookie");
    };
    await refused("a".repeat(16 * 1024 + 1), /larger than 16 KiB/);
    const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString("base64url");
    await refused(
      `${b64({ alg: "RS256" })}.${b64({ exp: Math.floor(Date.now() / 1000) - 60, sub: "x" })}.c2ln`,
      /expired/,
    );
    await refused("not-a-token-the-server-knows", /API server refused the token/);
    // A service-account token whose review names another account (its JWT edited): the API
    // server refuses the altered signature before any review could be inconsistent.
    const good = await serviceAccountToken(admin, "viewer");
    const [h, p, s] = good.split(".");
    const claims = JSON.parse(Buffer.from(p!, "base64url").toString());
    claims["kubernetes.io"].serviceaccount.name = "admin";
    await refused(`${h}.${b64(claims)}.${s}`, /refused the token/);

    // Cross-site POSTs are refused before anything else, whatever they carry.
    for (const headers of [{ "sec-fetch-site": "cross-site" }, { "sec-fetch-site": "same-site" }]) {
      const res = await post(base, "/auth/token", { token: good }, headers);
      assert.equal(res.status, 403);
      assert.equal(res.headers.get("set-cookie"), null);
    }
    const noFetchMeta = await fetch(`${base}/auth/logout`, {
      method: "POST",
      headers: { origin: "https://evil.example" },
    });
    assert.equal(noFetchMeta.status, 403);

    // Signed in, the session works, and ends 8 hours after sign-in even though the token lives on.
    const signIn = await post(base, "/auth/token", { token: good });
    assert.equal(signIn.status, 200);
    const cookie = signIn.headers.getSetCookie().map((c) => c.split(";")[0]!).filter((c) => !c.endsWith("="))
      .join("; ");
    const session = await fetch(`${base}/api/session`, { headers: { cookie } });
    assert.equal(session.status, 200);
    const info = await session.json();
    assert.equal(info.user, "system:serviceaccount:shop:viewer");
    // The token expires in an hour: so does the session, before the 8-hour cap.
    const left = Date.parse(info.expiresAt) - Date.now();
    assert.ok(left > 3500_000 && left <= 3600_000, `session ends with the token (${left} ms left)`);
    skewMs = 8 * 3600 * 1000 + 1000;
    try {
      const late = await fetch(`${base}/api/applications`, { headers: { cookie } });
      assert.equal(late.status, 401);
    } finally {
      skewMs = 0;
    }

    // The strict CSP of seed 5.5 on the page, its files and the API; /healthz answers.
    for (const path of ["/ui", "/ui/apps/shop/web", "/api/session", "/healthz"]) {
      const res = await fetch(`${base}${path}`);
      assert.equal(res.headers.get("content-security-policy"), CONSOLE_CSP, path);
      await res.body?.cancel();
    }
    assert.equal(
      CONSOLE_CSP,
      "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'; " +
        "form-action 'self'; base-uri 'none'",
    );
    assert.equal(await (await fetch(`${base}/healthz`)).text(), "ok\n");
    const bad = await fetch(`${base}/api/applications/..%2Fsecrets/x`, { headers: { cookie } });
    assert.ok(bad.status === 400 || bad.status === 404, `bad names are refused (${bad.status})`);
    await bad.body?.cancel();
  });

  it("OIDC mode: every page in Chromium, reads impersonate the signed-in user and groups", async () => {
    idp.misbehave = undefined;
    idp.nextUser = { sub: "u-1", email: "alice@example.test", groups: ["shop-team"] };
    const w = await watchedPage(browser, oidcConsole.url);
    const { page } = w;
    w.expectHttpError("/api/session", 401);
    await page.goto("/");
    const signIn = page.getByRole("link", { name: "Sign in with your identity provider" });
    await signIn.waitFor();
    await w.screenshot("console-oidc-sign-in");
    await signIn.click();
    await page.getByRole("link", { name: "web" }).waitFor();
    assert.match(await page.locator("header").innerText(), /alice@example\.test/);
    assert.equal(idp.tokenRequests.at(-1)?.pkce, true);
    // The session expires with the ID token (an hour), and impersonates the claims' user and groups.
    const me = await (await page.request.get("/api/session")).json();
    assert.deepEqual([me.mode, me.user, me.groups], ["oidc", "alice@example.test", ["shop-team"]]);
    const left = Date.parse(me.expiresAt) - Date.now();
    assert.ok(left > 3500_000 && left <= 3600_000, `session ends with the ID token (${left} ms left)`);
    await w.screenshot("console-oidc-applications");

    await page.getByRole("link", { name: "web", exact: true }).click();
    await page.getByRole("table").getByRole("link", { name: "web-4f9c2a1b7d3e" }).click();
    await page.getByText("sha256:1f2e3d4c5b6a: 1 to create").waitFor();
    await w.screenshot("console-oidc-revision");
    await page.goto("/ui/apps/shop/web/graph");
    await page.getByText("Deployment web").waitFor();
    await w.screenshot("console-oidc-graph");
    await page.goto("/ui/repos");
    await page.getByText("https://git.example.test/shop/app.git").waitFor();
    await w.screenshot("console-oidc-repositories");
    w.assertClean();
    await w.context.close();

    // Someone without RBAC sees the API server's refusal, not the data.
    idp.nextUser = { sub: "u-2", email: "bob@example.test", groups: ["other-team"] };
    const w2 = await watchedPage(browser, oidcConsole.url);
    w2.expectHttpError("/api/session", 401);
    w2.expectHttpError("/api/applications", 403);
    await w2.page.goto("/");
    await w2.page.getByRole("link", { name: "Sign in with your identity provider" }).click();
    await w2.page.getByRole("alert").filter({ hasText: /forbidden/i }).waitFor();
    assert.match(await w2.page.locator("header").innerText(), /bob@example\.test/);
    w2.assertClean();
    await w2.context.close();
  });

  it("OIDC mode: system: names and bad ID tokens are refused", async () => {
    const cases: [() => void, RegExp][] = [
      [() => (idp.nextUser = { sub: "u", email: "system:admin" }), /system: are refused \(system:admin\)/],
      [
        () => (idp.nextUser = { sub: "u", email: "eve@example.test", groups: ["system:masters"] }),
        /system:masters/,
      ],
      [() => (idp.misbehave = "wrong-nonce"), /nonce/],
      [() => (idp.misbehave = "wrong-key"), /signature/],
      [() => (idp.misbehave = "wrong-audience"), /aud/],
      [() => (idp.misbehave = "expired"), /exp/],
    ];
    for (const [setUp, reason] of cases) {
      idp.misbehave = undefined;
      idp.nextUser = { sub: "u-1", email: "alice@example.test", groups: ["shop-team"] };
      setUp();
      const w = await watchedPage(browser, oidcConsole.url);
      w.expectHttpError("/api/session", 401);
      w.expectHttpError("/api/session", 401);
      await w.page.goto("/");
      await w.page.getByRole("link", { name: "Sign in with your identity provider" }).click();
      const alert = w.page.getByRole("alert");
      await alert.waitFor();
      assert.match(await alert.innerText(), reason);
      assert.deepEqual(
        (await w.context.cookies()).filter((c) => c.name.startsWith("gitsync_session") && c.value),
        [],
      );
      await w.context.close();
    }
    idp.misbehave = undefined;

    // A callback without the sign-in's own state cookie (another browser's, or forged) is refused.
    const res = await fetch(`${oidcConsole.url}/auth/oidc/callback?code=x&state=y`, { redirect: "manual" });
    assert.equal(res.status, 302);
    assert.match(decodeURIComponent(res.headers.get("location")!), /start again/);
    assert.equal(res.headers.getSetCookie().some((c) => /gitsync_session\.0=[^;]/.test(c)), false);
    // Token sign-in is off in OIDC mode.
    assert.equal((await post(oidcConsole.url, "/auth/token", { token: "x" })).status, 400);
  });
});
