/**
 * gitsync-manager as deploy/gitsync/install.yaml installs it, minus the Deployment and webhook (the
 * manager runs as a process here): its namespace, service account and RBAC, and a kubeconfig with a
 * token of that account. Tests and the benchmark then run the manager with exactly the install's rights.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { applyObject, type KubeClient, parseManifests } from "../../internal/k8s/mod.ts";
import { ROOT } from "../harness/binary.ts";
import { serviceAccountToken, writeTokenKubeconfig } from "../harness/k8s_fixtures.ts";

const RBAC = new Set([
  "Namespace",
  "ServiceAccount",
  "ClusterRole",
  "ClusterRoleBinding",
  "Role",
  "RoleBinding",
]);

/** Applies the install's RBAC objects; writes `kubeconfigPath` for gitsync-system/gitsync-manager. */
export async function installControllerRbac(
  admin: KubeClient,
  cluster: { server: string; caFile: string },
  kubeconfigPath: string,
): Promise<string> {
  const text = await readFile(join(ROOT, "deploy/gitsync/install.yaml"), "utf8");
  for (const m of parseManifests(text, "install.yaml")) {
    if (RBAC.has(m.object.kind!)) {
      await applyObject(admin, m.object, { serverSide: true, fieldManager: "test" });
    }
  }
  const token = await serviceAccountToken(admin, "gitsync-system", "gitsync-manager");
  return await writeTokenKubeconfig(kubeconfigPath, cluster, token);
}
