/**
 * Objects most Kubernetes tests set up: a namespace that is ready for Pods, and a service account
 * bound to a Role with a client that acts as it (what gitsync does for an Application).
 */
import { writeFile } from "node:fs/promises";
import type { KubeClient } from "../../internal/k8s/mod.ts";

/**
 * Creates a namespace; with `forPods`, waits until the ServiceAccount controller has given it its
 * `default` account (Pods are refused before that; needs `workloads: true`).
 */
export async function createNamespace(client: KubeClient, name: string, options: { forPods?: boolean } = {}) {
  await client.request({ method: "POST", path: "/api/v1/namespaces", body: { metadata: { name } } });
  if (!options.forPods) return;
  const deadline = Date.now() + 20_000;
  for (;;) {
    try {
      await client.request({ path: `/api/v1/namespaces/${name}/serviceaccounts/default` });
      return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

export interface PolicyRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}

/** A Role with `rules` bound to service account `name` in `namespace`; returns a client acting as it. */
export async function serviceAccountWithRole(
  admin: KubeClient,
  namespace: string,
  name: string,
  rules: PolicyRule[],
): Promise<KubeClient> {
  const rbac = `/apis/rbac.authorization.k8s.io/v1/namespaces/${namespace}`;
  await admin.request({ method: "POST", path: `${rbac}/roles`, body: { metadata: { name }, rules } });
  await admin.request({
    method: "POST",
    path: `${rbac}/rolebindings`,
    body: {
      metadata: { name },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name },
      subjects: [{ kind: "ServiceAccount", name, namespace }],
    },
  });
  return admin.impersonating({ user: `system:serviceaccount:${namespace}:${name}` });
}

/** Writes a kubeconfig (mode 0600) that authenticates with a bearer token, trusting the cluster's CA file. */
export async function writeTokenKubeconfig(
  path: string,
  cluster: { server: string; caFile: string },
  token: string,
): Promise<string> {
  await writeFile(
    path,
    JSON.stringify({
      apiVersion: "v1",
      kind: "Config",
      clusters: [{
        name: "test",
        cluster: { server: cluster.server, "certificate-authority": cluster.caFile },
      }],
      users: [{ name: "token", user: { token } }],
      contexts: [{ name: "test", context: { cluster: "test", user: "token" } }],
      "current-context": "test",
    }),
    { mode: 0o600 },
  );
  return path;
}

/** A token of service account `namespace/name` (TokenRequest), valid for an hour. */
export async function serviceAccountToken(
  admin: KubeClient,
  namespace: string,
  name: string,
): Promise<string> {
  const r = await admin.request<{ status: { token: string } }>({
    method: "POST",
    path: `/api/v1/namespaces/${namespace}/serviceaccounts/${name}/token`,
    body: { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: { expirationSeconds: 3600 } },
  });
  return r.status.token;
}

/**
 * Binds ClusterRole `clusterRole` (or, with `roleKind: "Role"`, the namespace's Role of that name) in
 * `namespace` to a user or a service account (of that namespace).
 */
export async function bindClusterRole(
  admin: KubeClient,
  namespace: string,
  clusterRole: string,
  subject: { kind: "User" | "ServiceAccount"; name: string },
  roleKind: "ClusterRole" | "Role" = "ClusterRole",
): Promise<void> {
  await admin.request({
    method: "POST",
    path: `/apis/rbac.authorization.k8s.io/v1/namespaces/${namespace}/rolebindings`,
    body: {
      metadata: { name: `${subject.name}-${clusterRole}` },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: roleKind, name: clusterRole },
      subjects: [
        subject.kind === "User"
          ? { apiGroup: "rbac.authorization.k8s.io", kind: "User", name: subject.name }
          : { kind: "ServiceAccount", name: subject.name, namespace },
      ],
    },
  });
}
