/**
 * Outbound notifications (seed sections 2, 4, 6, 7, 8): an Application's `spec.notifications` name
 * NotificationSinks in its namespace and the events they want (AwaitingApproval, Healthy, Failed,
 * RolledBack; all when empty). Each transition is queued once, in memory (bounded; lost on restart),
 * and delivered by one worker with up to 3 attempts and backoff. A sink's Secret holds `url` (https
 * only) and, for `webhook` sinks, `hmacKey`: the JSON body is signed in `X-Gitsync-Signature:
 * sha256=<hex HMAC-SHA256>`. Slack sinks get a short text. An optional `ca.crt` (PEM) in the Secret is
 * trusted for that sink besides the system's roots, for sinks behind a private CA. Redirects are not followed (a 3xx is a
 * failure) and no error ever carries the sink URL (it is a credential for Slack). When every attempt
 * failed: Warning Event NotificationFailed on the Application.
 */
import { createHmac } from "node:crypto";
import { request as httpsRequest } from "node:https";
import { rootCertificates } from "node:tls";
import type { KubeClient } from "../../../internal/k8s/mod.ts";
import type { NotificationSink } from "../api/mod.ts";
import { getResource, ifNotFound, readSecret, secretText } from "../client/mod.ts";

export const NOTIFICATION_EVENTS = ["AwaitingApproval", "Healthy", "Failed", "RolledBack"] as const;
export type NotificationEvent = typeof NOTIFICATION_EVENTS[number];

export interface Notification {
  event: NotificationEvent;
  application: { namespace: string; name: string };
  revision: string;
  sourceRevision: string;
  /** Redacted. */
  message: string;
  planSummary?: Record<string, number>;
  planDigest?: string;
}

export interface SinkTarget {
  type: "webhook" | "slack";
  url: string;
  hmacKey?: string;
  /** PEM of a private CA to trust for this sink (Secret key ca.crt). */
  ca?: string;
}

/** Why a sink cannot be used (for condition NotificationsReady); never contains the URL. */
export class SinkInvalid extends Error {
  override name = "SinkInvalid";
}

/** Reads a NotificationSink and its Secret (uncached); throws SinkInvalid naming what is wrong. */
export async function readSink(client: KubeClient, namespace: string, name: string): Promise<SinkTarget> {
  const sink = await ifNotFound(
    getResource<NotificationSink>(client, "notificationsinks", namespace, name),
    () => {
      throw new SinkInvalid(`NotificationSink ${name} does not exist`);
    },
  );
  const secretName = sink.spec.secretRef.name;
  const secret = await readSecret(client, namespace, secretName);
  if (!secret) throw new SinkInvalid(`Secret ${secretName} of NotificationSink ${name} does not exist`);
  const value = (k: string) => secretText(secret, k)?.trim() ?? "";
  const url = value("url");
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (!parsed || parsed.protocol !== "https:") {
    throw new SinkInvalid(`Secret ${secretName} of NotificationSink ${name} needs key url with an https URL`);
  }
  const hmacKey = value("hmacKey");
  if (sink.spec.type === "webhook" && !hmacKey) {
    throw new SinkInvalid(
      `Secret ${secretName} of NotificationSink ${name} needs key hmacKey for a webhook sink`,
    );
  }
  const ca = value("ca.crt");
  if (ca && !ca.includes("-----BEGIN CERTIFICATE-----")) {
    throw new SinkInvalid(`Secret ${secretName} of NotificationSink ${name} has a ca.crt that is not PEM`);
  }
  return { type: sink.spec.type, url, ...(hmacKey ? { hmacKey } : {}), ...(ca ? { ca } : {}) };
}

/** The JSON a webhook sink receives. */
export function webhookBody(n: Notification): string {
  return JSON.stringify({
    event: n.event,
    application: n.application,
    revision: n.revision,
    sourceRevision: n.sourceRevision,
    message: n.message,
    ...(n.planSummary ? { planSummary: n.planSummary } : {}),
    ...(n.planDigest ? { planDigest: n.planDigest } : {}),
    ...(n.event === "AwaitingApproval" && n.planDigest
      ? {
        approveCommand:
          `gitsync approve ${n.application.name} -n ${n.application.namespace} --digest ${n.planDigest}`,
      }
      : {}),
  });
}

/** The text a Slack sink shows. */
export function slackText(n: Notification): string {
  const app = `${n.application.namespace}/${n.application.name}`;
  const head = `${n.event}: ${app} Revision ${n.revision} (commit ${n.sourceRevision.slice(0, 12)})`;
  const approve = n.event === "AwaitingApproval" && n.planDigest
    ? `\nApprove: gitsync approve ${n.application.name} -n ${n.application.namespace} --digest ${n.planDigest}`
    : "";
  return `${head}: ${n.message}${approve}`;
}

/** One POST; resolves with the status, rejects on connection errors. Never follows redirects. */
function post(url: string, body: string, headers: Record<string, string>, ca?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(url, {
      method: "POST",
      // With a private CA: it and the system's roots (Node's `ca` replaces the roots when given alone).
      ...(ca ? { ca: [...rootCertificates, ca] } : {}),
      headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body), ...headers },
      timeout: 10_000,
    }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on("timeout", () => req.destroy(new Error("timed out")));
    req.on("error", reject);
    req.end(body);
  });
}

export interface NotifierOptions {
  client: KubeClient;
  /** Called when a notification could not be delivered (message without the URL). */
  onFailed: (n: Notification, sink: string, message: string) => void;
  /** Queue bound; older notifications are dropped first when full. Default 1,000. */
  maxQueued?: number;
  /** Backoff before attempts 2 and 3; default 1 s and 4 s. */
  backoffMs?: [number, number];
}

export class Notifier {
  private readonly queue: { n: Notification; sink: string }[] = [];
  private running = false;
  private idle: Promise<void> = Promise.resolve();

  constructor(private readonly o: NotifierOptions) {}

  /** Queues `n` for each of the Application's sinks that wants its event. */
  notify(
    notifications: { sinkRef: { name: string }; events?: string[] }[] | undefined,
    n: Notification,
  ): void {
    for (const entry of notifications ?? []) {
      if (entry.events?.length && !entry.events.includes(n.event)) continue;
      if (this.queue.length >= (this.o.maxQueued ?? 1000)) this.queue.shift();
      this.queue.push({ n, sink: entry.sinkRef.name });
    }
    if (!this.running && this.queue.length) this.idle = this.drain();
  }

  /** Resolves when the queue is empty (for stopping). */
  settled(): Promise<void> {
    return this.idle;
  }

  private async drain(): Promise<void> {
    this.running = true;
    try {
      for (let item = this.queue.shift(); item; item = this.queue.shift()) {
        await this.deliver(item.n, item.sink);
      }
    } finally {
      this.running = false;
    }
  }

  private async deliver(n: Notification, sinkName: string): Promise<void> {
    let sink: SinkTarget;
    try {
      sink = await readSink(this.o.client, n.application.namespace, sinkName);
    } catch (err) {
      this.o.onFailed(n, sinkName, err instanceof SinkInvalid ? err.message : "the sink could not be read");
      return;
    }
    const body = sink.type === "slack" ? JSON.stringify({ text: slackText(n) }) : webhookBody(n);
    const headers: Record<string, string> = sink.type === "webhook"
      ? { "x-gitsync-signature": `sha256=${createHmac("sha256", sink.hmacKey!).update(body).digest("hex")}` }
      : {};
    const backoff = this.o.backoffMs ?? [1_000, 4_000];
    let why = "";
    for (let attempt = 1; attempt <= 3; attempt++) {
      try {
        const status = await post(sink.url, body, headers, sink.ca);
        if (status >= 200 && status < 300) return;
        why = status >= 300 && status < 400
          ? `answered ${status} (redirects are not followed)`
          : `answered ${status}`;
      } catch (err) {
        // The error's text can carry the URL: keep only its code.
        why = `could not be reached (${(err as { code?: string }).code ?? "error"})`;
      }
      if (attempt < 3) await new Promise((r) => setTimeout(r, backoff[attempt - 1]));
    }
    this.o.onFailed(n, sinkName, `NotificationSink ${sinkName} ${why} after 3 attempts`);
  }
}
