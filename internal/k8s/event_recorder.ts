/**
 * Records Kubernetes Events about objects a controller manages (core v1 Events, which `kubectl
 * describe` and `kubectl events` show). A repeat of the same reason and message for the same object
 * bumps the existing Event's count and lastTimestamp instead of adding another (client-go's
 * correlator does the same), so a reconcile loop never floods the namespace. Messages pass through
 * the caller's redaction and are cut to 1 KiB. Recording never fails the caller: an Event is
 * best-effort, and an error is handed to `onError`.
 *
 * @example
 * const events = new EventRecorder(client, { component: "gitsync-manager", redact });
 * await events.warning(revision, "HookFailed", "pre-sync hook Job/team/migrate failed: ...");
 */
import { randomBytes } from "node:crypto";
import type { KubeClient } from "./client.ts";
import type { KubeObject } from "./resources.ts";

export interface EventRecorderOptions {
  /** source.component / reportingController. */
  component: string;
  /** Applied to every message. */
  redact?: (text: string) => string;
  onError?: (err: unknown) => void;
}

const MAX_MESSAGE = 1024;

export class EventRecorder {
  /** Object uid + type + reason + message -> the Event's name and count. */
  private readonly recent = new Map<string, { name: string; namespace: string; count: number }>();

  constructor(private readonly client: KubeClient, private readonly options: EventRecorderOptions) {}

  normal(object: KubeObject, reason: string, message: string): Promise<void> {
    return this.record(object, "Normal", reason, message);
  }

  warning(object: KubeObject, reason: string, message: string): Promise<void> {
    return this.record(object, "Warning", reason, message);
  }

  async record(
    object: KubeObject,
    type: "Normal" | "Warning",
    reason: string,
    message: string,
  ): Promise<void> {
    const m = object.metadata ?? {};
    const namespace = m.namespace ?? "default";
    const text = (this.options.redact ?? ((t: string) => t))(message).slice(0, MAX_MESSAGE);
    const key = `${m.uid ?? `${object.kind}/${namespace}/${m.name}`}\0${type}\0${reason}\0${text}`;
    const now = new Date().toISOString().replace(/\.\d{3}Z$/, "Z");
    try {
      const seen = this.recent.get(key);
      if (seen) {
        seen.count++;
        await this.client.request({
          method: "PATCH",
          path: `/api/v1/namespaces/${seen.namespace}/events/${seen.name}`,
          contentType: "application/merge-patch+json",
          body: { count: seen.count, lastTimestamp: now },
        });
        return;
      }
      const name = `${m.name}.${randomBytes(8).toString("hex")}`;
      await this.client.request({
        method: "POST",
        path: `/api/v1/namespaces/${namespace}/events`,
        body: {
          apiVersion: "v1",
          kind: "Event",
          metadata: { name, namespace },
          involvedObject: {
            apiVersion: object.apiVersion,
            kind: object.kind,
            namespace: m.namespace,
            name: m.name,
            uid: m.uid,
            resourceVersion: m.resourceVersion,
          },
          type,
          reason,
          message: text,
          count: 1,
          firstTimestamp: now,
          lastTimestamp: now,
          source: { component: this.options.component },
          reportingComponent: this.options.component,
        },
      });
      if (this.recent.size > 4096) this.recent.clear();
      this.recent.set(key, { name, namespace, count: 1 });
    } catch (err) {
      this.options.onError?.(err);
    }
  }
}
