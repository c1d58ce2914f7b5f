/**
 * `gitsync-manager run --local-webhook`: the approval webhook for a manager running outside the cluster
 * (a laptop against kind, k3d or a test cluster). The manager serves the webhook on 127.0.0.1 with a
 * certificate it makes up at start, and registers a MutatingWebhookConfiguration that points the API
 * server at that URL (clientConfig.url) with the CA as caBundle. It is removed on exit; one left behind by
 * a crash is replaced at the next start (same name, server-side apply with force). Fails closed like the
 * in-cluster one: while no local manager answers, Applications cannot be created or changed —
 * `kubectl delete mutatingwebhookconfiguration gitsync-approval-local` lifts that.
 */
import type { KubeClient } from "../../../internal/k8s/mod.ts";
import { isKubeApiError } from "../../../internal/k8s/mod.ts";
import { approvalWebhook } from "./webhook_server.ts";
import { LOCAL_WEBHOOK_CONFIGURATION } from "./webhook_names.ts";

export { LOCAL_WEBHOOK_CONFIGURATION };
const PATH = "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations";

export interface LocalWebhook {
  /** Deletes the configuration this run registered (not a newer one of another run). */
  remove(): Promise<void>;
}

/** Registers (or replaces) the local configuration for https://127.0.0.1:<port>. */
export async function registerLocalWebhook(
  client: KubeClient,
  o: { port: number; caBundle: string; fieldManager?: string },
): Promise<LocalWebhook> {
  const applied = await client.request<{ metadata: { uid: string } }>({
    method: "PATCH",
    path: `${PATH}/${LOCAL_WEBHOOK_CONFIGURATION}`,
    query: { fieldManager: o.fieldManager ?? "gitsync-manager", force: true },
    contentType: "application/apply-patch+yaml",
    body: {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "MutatingWebhookConfiguration",
      metadata: {
        name: LOCAL_WEBHOOK_CONFIGURATION,
        labels: {
          "app.kubernetes.io/name": "gitsync-manager",
          "app.kubernetes.io/component": "local-webhook",
        },
      },
      webhooks: [approvalWebhook({
        url: `https://127.0.0.1:${o.port}`,
        caBundle: Buffer.from(o.caBundle).toString("base64"),
      })],
    },
  });
  const uid = applied.metadata.uid;
  return {
    async remove() {
      try {
        await client.request({
          method: "DELETE",
          path: `${PATH}/${LOCAL_WEBHOOK_CONFIGURATION}`,
          body: { apiVersion: "v1", kind: "DeleteOptions", preconditions: { uid } },
        });
      } catch (err) {
        // Gone already, or replaced by a newer run (uid precondition): not ours to delete.
        if (!isKubeApiError(err, 404) && !isKubeApiError(err, 409)) throw err;
      }
    },
  };
}
