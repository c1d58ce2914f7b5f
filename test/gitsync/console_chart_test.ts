/**
 * The console part of deploy/gitsync/chart, rendered by the real helm: off by default (install.yaml has
 * no console), token mode with an account that has no permissions, OIDC mode whose account may
 * impersonate only console.impersonation's names (checked by the API server's SubjectAccessReview),
 * and the values each mode requires.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { parseAllDocuments } from "yaml";
import { applyObject, KubeClient, type KubeObject } from "../../internal/k8s/mod.ts";
import { cachedBinary } from "../../scripts/testenv/go_build.ts";
import { HELM } from "../../scripts/testenv/servers.ts";
import { renderChart } from "../../scripts/gen_install.ts";
import { type KubeApiServer, startKubeApiServer } from "../harness/k8s.ts";

const helm = cachedBinary(HELM);
const objects = (text: string) =>
  parseAllDocuments(text).map((d) => d.toJS() as KubeObject).filter((o) => o && o.kind);
// deno-lint-ignore no-explicit-any
const find = (os: KubeObject[], kind: string, name: string): any =>
  os.find((o) => o.kind === kind && o.metadata?.name === name);
const TOKEN = ["console.enabled=true", "console.sessionKeySecret=console-session"];
const OIDC = [
  ...TOKEN,
  "console.oidc.issuer=https://login.example.test",
  "console.oidc.clientId=gitsync",
  "console.oidc.redirectUrl=https://gitsync.example.test/auth/oidc/callback",
  "console.oidc.clientSecretSecret=console-oidc",
  "console.impersonation.users={alice@example.test}",
  "console.impersonation.groups={shop-team}",
];

describe("the gitsync chart's console", () => {
  let k8s: KubeApiServer;
  let admin: KubeClient;
  before(async () => {
    if (!helm) throw new Error("helm is not built: run `deno task testenv:build helm`");
    k8s = await startKubeApiServer();
    admin = KubeClient.fromKubeconfig({ path: k8s.kubeconfigPath });
    await admin.request({
      method: "POST",
      path: "/api/v1/namespaces",
      body: { metadata: { name: "gitsync" } },
    });
  });
  after(async () => {
    admin?.close();
    await k8s?.stop();
  });

  it("is off by default", async () => {
    const os = objects(await renderChart(helm!));
    assert.equal(os.filter((o) => o.metadata?.name?.startsWith("gitsync-console")).length, 0);
  });

  it("token mode: Deployment, Service and an account bound to nothing; accepted by the API server", async () => {
    const os = objects(await renderChart(helm!, TOKEN, "gitsync"));
    const deploy = find(os, "Deployment", "gitsync-console");
    const pod = deploy.spec.template.spec;
    assert.equal(pod.serviceAccountName, "gitsync-console");
    assert.deepEqual(pod.containers[0].args.slice(0, 3), [
      "console",
      "--bind-address=:8080",
      "--session-key-file=/etc/gitsync-console/session/session.key",
    ]);
    assert.ok(!pod.containers[0].args.some((a: string) => a.startsWith("--oidc")));
    assert.equal(pod.volumes[0].secret.secretName, "console-session");
    assert.ok(find(os, "ServiceAccount", "gitsync-console"));
    assert.equal(
      find(os, "Service", "gitsync-console").spec.selector["app.kubernetes.io/name"],
      "gitsync-console",
    );
    const bound = os.filter((o) =>
      // deno-lint-ignore no-explicit-any
      /RoleBinding$/.test(o.kind!) && (o as any).subjects?.some((s: any) => s.name === "gitsync-console")
    );
    assert.deepEqual(bound, [], "the token-mode account has no permissions");
    for (const o of os.filter((o) => o.metadata?.name?.startsWith("gitsync-console"))) {
      await applyObject(admin, o, { serverSide: true, fieldManager: "chart-test", dryRun: true });
    }
  });

  it("OIDC mode: the account may impersonate only the listed user and group", async () => {
    const os = objects(await renderChart(helm!, OIDC, "gitsync"));
    const args: string[] = find(os, "Deployment", "gitsync-console").spec.template.spec.containers[0].args;
    for (
      const a of [
        "--oidc-issuer=https://login.example.test",
        "--oidc-client-id=gitsync",
        "--oidc-redirect-url=https://gitsync.example.test/auth/oidc/callback",
      ]
    ) assert.ok(args.includes(a), `${a} in ${args}`);
    assert.ok(
      !args.some((a) => a.includes("client-secret")),
      "the client secret comes from a Secret, not args",
    );
    for (const o of os) {
      if (o.kind === "ServiceAccount" || /^ClusterRole/.test(o.kind!)) {
        await applyObject(admin, o, { serverSide: true, fieldManager: "chart-test" });
      }
    }
    const may = async (resource: string, name: string) => {
      const review = await admin.request<{ status: { allowed: boolean } }>({
        method: "POST",
        path: "/apis/authorization.k8s.io/v1/subjectaccessreviews",
        body: {
          apiVersion: "authorization.k8s.io/v1",
          kind: "SubjectAccessReview",
          spec: {
            user: "system:serviceaccount:gitsync:gitsync-console",
            groups: ["system:serviceaccounts", "system:serviceaccounts:gitsync"],
            resourceAttributes: { verb: "impersonate", resource, name },
          },
        },
      });
      return review.status.allowed;
    };
    assert.equal(await may("users", "alice@example.test"), true);
    assert.equal(await may("groups", "shop-team"), true);
    assert.equal(await may("users", "admin"), false);
    assert.equal(await may("groups", "system:masters"), false);
  });

  it("each mode's required values are named when missing", async () => {
    for (
      const [values, message] of [
        [["console.enabled=true"], /console.sessionKeySecret is required/],
        [
          [...TOKEN, "console.oidc.issuer=https://x"],
          /issuer, console.oidc.clientId and console.oidc.redirectUrl/,
        ],
        [OIDC.filter((v) => !v.startsWith("console.impersonation")), /console.impersonation.users or/],
      ] as const
    ) {
      await assert.rejects(renderChart(helm!, [...values]), message);
    }
  });
});
