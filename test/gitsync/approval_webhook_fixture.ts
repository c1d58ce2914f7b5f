/** Registers gitsync's approval webhook with the API server, as install.yaml does, at a URL on 127.0.0.1. */
import { readFile } from "node:fs/promises";
import { approvalWebhook } from "../../controller/gitsync/approval/webhook_server.ts";
import type { KubeClient } from "../../internal/k8s/mod.ts";

export async function registerApprovalWebhook(
  admin: KubeClient,
  port: number,
  caFile: string,
): Promise<void> {
  await admin.request({
    method: "POST",
    path: "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations",
    body: {
      metadata: { name: "gitsync-approval" },
      // Fails closed, as in install.yaml: no Application changes while the webhook is down.
      webhooks: [approvalWebhook({
        url: `https://127.0.0.1:${port}`,
        caBundle: Buffer.from(await readFile(caFile)).toString("base64"),
      })],
    },
  });
}
