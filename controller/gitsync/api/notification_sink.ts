/** NotificationSink (seed section 2): where an Application's lifecycle notifications go. */
import type { KubeObject } from "../../../internal/k8s/mod.ts";

export interface NotificationSink extends KubeObject {
  /** The Secret holds `url` (https), and for a webhook `hmacKey`; optionally `ca.crt`. */
  spec: { type: "webhook" | "slack"; secretRef: { name: string } };
}
