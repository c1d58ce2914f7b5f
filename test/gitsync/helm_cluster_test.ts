/**
 * The Helm renderer's cluster side against a real kube-apiserver: valuesFrom and `lookup` read as the
 * Application's service account (impersonated, as the Revision reconciler does), so RBAC decides what a
 * chart may see. The service account may read ConfigMaps in its namespace and nothing else.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { KubeClient } from "../../internal/k8s/mod.ts";
import { Helm } from "../../controller/gitsync/render/helm.ts";
import { kubeLookup, valuesFromReader } from "../../controller/gitsync/render/helm_source.ts";
import { Kustomize } from "../../controller/gitsync/render/kustomize.ts";
import { renderSource } from "../../controller/gitsync/render/render.ts";
import { type KubeApiServer, startKubeApiServer } from "../harness/k8s.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const NS = "team";

/** A chart whose ConfigMap shows a value (from valuesFrom) and what lookup found. */
function tree(lookupKind: "ConfigMap" | "Secret") {
  return new Map([
    ["chart/Chart.yaml", enc("apiVersion: v2\nname: look\nversion: 1.0.0\n")],
    ["chart/values.yaml", enc("color: none\nsize: s\n")],
    [
      "chart/templates/cm.yaml",
      enc(
        `{{- $found := lookup "v1" "${lookupKind}" .Release.Namespace "settings" }}\n` +
          "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: out\ndata:\n" +
          "  color: {{ .Values.color }}\n  size: {{ .Values.size }}\n" +
          `  found: {{ dig "data" "mode" "missing" $found | quote }}\n` +
          `  all: {{ len (lookup "v1" "${lookupKind}" .Release.Namespace "").items | quote }}\n`,
      ),
    ],
  ]);
}

describe("Helm valuesFrom and lookup as the Application's service account", () => {
  let k8s: KubeApiServer;
  let admin: KubeClient;
  let sa: KubeClient;
  const helm = new Helm();
  const kustomize = new Kustomize();

  before(async () => {
    k8s = await startKubeApiServer();
    admin = KubeClient.fromKubeconfig({ path: k8s.kubeconfigPath });
    const create = (path: string, body: unknown) => admin.request({ method: "POST", path, body });
    await create("/api/v1/namespaces", { metadata: { name: NS } });
    await create(`/api/v1/namespaces/${NS}/configmaps`, {
      metadata: { name: "values" },
      data: { "values.yaml": "color: teal\n", "other.yaml": "size: xl\n" },
    });
    await create(`/api/v1/namespaces/${NS}/configmaps`, {
      metadata: { name: "settings" },
      data: { mode: "fast" },
    });
    await create(`/api/v1/namespaces/${NS}/secrets`, {
      metadata: { name: "settings" },
      stringData: { "values.yaml": "color: secret\n" },
    });
    await create(`/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/roles`, {
      metadata: { name: "read-configmaps" },
      rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["get", "list"] }],
    });
    await create(`/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/rolebindings`, {
      metadata: { name: "app" },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "read-configmaps" },
      subjects: [{ kind: "ServiceAccount", name: "app", namespace: NS }],
    });
    sa = admin.impersonating({ user: `system:serviceaccount:${NS}:app` });
  });

  after(async () => {
    helm.close();
    kustomize.close();
    admin?.close();
    await k8s?.stop();
  });

  const render = (
    lookupKind: "ConfigMap" | "Secret",
    valuesFrom: { kind: "Secret" | "ConfigMap"; name: string; key?: string }[],
  ) =>
    renderSource(
      { kustomize, helm },
      tree(lookupKind),
      { path: "chart", render: { type: "helm", helm: { valuesFrom } } },
      {
        namespace: NS,
        applicationName: "app",
        readValuesFrom: valuesFromReader(sa, NS),
        lookup: kubeLookup(sa),
      },
    );

  it("reads a ConfigMap's values and looks up ConfigMaps the service account may read", async () => {
    const [cm] = await render("ConfigMap", [
      { kind: "ConfigMap", name: "values" },
      { kind: "ConfigMap", name: "values", key: "other.yaml" },
    ]);
    assert.deepEqual((cm as { data?: unknown }).data, { color: "teal", size: "xl", found: "fast", all: "2" });
  });

  it("a Secret the service account may not read fails the render, for valuesFrom and for lookup", async () => {
    await assert.rejects(render("ConfigMap", [{ kind: "Secret", name: "settings" }]), (err: Error) => {
      assert.equal(err.name, "RenderFailure");
      assert.match(
        err.message,
        /valuesFrom Secret\/settings: secrets "settings" is forbidden: User "system:serviceaccount:team:app" cannot get/,
      );
      return true;
    });
    await assert.rejects(render("Secret", []), (err: Error) => {
      assert.equal(err.name, "RenderFailure");
      assert.match(err.message, /secrets "settings" is forbidden/);
      assert.doesNotMatch(err.message, /color: secret/);
      return true;
    });
  });
});
