/**
 * The admission webhook's HTTPS endpoint (seed sections 4 and 5.1; port 9443 in the manager): the API
 * server POSTs an admission.k8s.io/v1 AdmissionReview for every Application create and update, and
 * the answer carries reviewApplication's decision. Registered with failurePolicy Fail, so no
 * Application changes while the webhook is down (fails closed). The certificate comes from a
 * CertificateSource (files from cert-manager, the manager's own Secret, or --local-webhook's) and is
 * swapped while serving when it is renewed. Until a source has a certificate the listener is bound but
 * refuses handshakes (the API server then refuses the change: still closed).
 *
 * @example
 * const server = await startWebhookServer({
 *   port: 9443, certificate: certificateFiles(".../tls.crt", ".../tls.key"),
 *   revision: (ns, name) => Promise.resolve(revisions.get(`${ns}/${name}`)),
 * });
 */
import { Hono } from "hono";
import { type AppEnv, serve } from "../../../internal/http/mod.ts";
import { silentLogger } from "../../../internal/log/mod.ts";
import { bindTlsListener } from "../tls_listener.ts";
import type { CertificateSource } from "./certificate_source.ts";
import {
  type AdmissionRequest,
  type AdmissionResponse,
  reviewApplication,
  type RevisionLookup,
} from "./review.ts";

export const MUTATE_APPLICATION_PATH = "/mutate-sync-gitsync-io-v1alpha1-application";
/** AdmissionReviews are small; anything bigger is not from the API server. */
const MAX_BODY = 3 * 1024 * 1024;

/**
 * The webhook entry of a MutatingWebhookConfiguration, as deploy/gitsync/chart's webhook.yaml has it:
 * Application creates and updates, failurePolicy Fail. `url` is the server's base (local mode).
 */
export function approvalWebhook(clientConfig: { url: string; caBundle?: string }) {
  return {
    name: "approval.sync.gitsync.io",
    admissionReviewVersions: ["v1"],
    sideEffects: "None",
    // Fails closed: no Application changes while the webhook is down.
    failurePolicy: "Fail",
    timeoutSeconds: 10,
    clientConfig: {
      url: `${clientConfig.url}${MUTATE_APPLICATION_PATH}`,
      ...(clientConfig.caBundle ? { caBundle: clientConfig.caBundle } : {}),
    },
    rules: [{
      apiGroups: ["sync.gitsync.io"],
      apiVersions: ["v1alpha1"],
      operations: ["CREATE", "UPDATE"],
      resources: ["applications"],
    }],
  };
}

export interface WebhookServerOptions {
  host?: string;
  port: number;
  certificate: CertificateSource;
  /** --enable-http2: offer HTTP/2 besides HTTP/1.1; default false. */
  http2?: boolean;
  /** The Revisions approvals name (the manager's cache). */
  revision: RevisionLookup;
  /** Called for each refused or failed review, for logs and Events; never given the object. */
  onDecision?: (d: { uid: string; user?: string; allowed: boolean; message?: string }) => void;
  /** A renewed certificate could not be used (the current one stays). */
  onCertificateError?: (err: Error) => void;
}

export interface WebhookServer {
  /** The bound port (useful with port 0). */
  port: number;
  /** True once a certificate is served (readiness). */
  serving(): boolean;
  close(): Promise<void>;
}

/** The body as text, or undefined when it is over `max` bytes (the rest is not read). */
async function cappedText(req: Request, max: number): Promise<string | undefined> {
  if (!req.body) return "";
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > max) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** POST of an AdmissionReview to MUTATE_APPLICATION_PATH; anything else is 404. */
export function webhookApp(options: Pick<WebhookServerOptions, "revision" | "onDecision">): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.post(MUTATE_APPLICATION_PATH, async (c) => {
    const text = await cappedText(c.req.raw, MAX_BODY);
    if (text === undefined) return c.json({ error: "the body is too large for an AdmissionReview" }, 413);
    let review: { apiVersion?: string; kind?: string; request?: AdmissionRequest };
    try {
      review = JSON.parse(text);
    } catch {
      return c.json({ error: "the body is not an AdmissionReview" }, 400);
    }
    const request = review?.request;
    if (review?.kind !== "AdmissionReview" || !request?.uid) {
      return c.json({ error: "no AdmissionReview request" }, 400);
    }
    let response: AdmissionResponse;
    try {
      response = await reviewApplication(request, options.revision);
    } catch (err) {
      // Fail closed: an error reading the Revision refuses the change instead of letting it through.
      response = {
        uid: request.uid,
        allowed: false,
        status: {
          code: 500,
          reason: "InternalError",
          message: `approval check failed: ${(err as Error).message}`,
        },
      };
    }
    options.onDecision?.({
      uid: request.uid,
      user: request.userInfo?.username,
      allowed: response.allowed,
      ...(response.status ? { message: response.status.message } : {}),
    });
    return c.json({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", response });
  });
  app.notFound((c) => c.json({ error: "not found" }, 404));
  return app;
}

export async function startWebhookServer(options: WebhookServerOptions): Promise<WebhookServer> {
  const first = options.certificate.current();
  const host = options.host ?? "0.0.0.0";
  const tls = await bindTlsListener({
    host,
    port: options.port,
    ...(first ? { certificate: first } : {}),
    http2: options.http2 ?? false,
  });
  const server = serve(webhookApp(options), {
    hostname: host,
    port: tls.port,
    log: silentLogger, // the manager logs one line with every port
    handleSignals: false,
    listen: tls.listen,
  });
  let serving = first !== undefined;
  const unsubscribe = options.certificate.subscribe((c) => {
    try {
      tls.setCertificate(c);
      serving = true;
    } catch (err) {
      options.onCertificateError?.(err as Error);
    }
  });
  return {
    port: tls.port,
    serving: () => serving,
    close: async () => {
      unsubscribe();
      await server.stop();
    },
  };
}
