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
import { startTlsServer } from "../tls_server.ts";
import type { CertificateSource } from "./certificate_source.ts";
import { type AdmissionRequest, reviewApplication, type RevisionLookup } from "./review.ts";

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

export async function startWebhookServer(options: WebhookServerOptions): Promise<WebhookServer> {
  const first = options.certificate.current();
  const server = await startTlsServer({
    host: options.host ?? "0.0.0.0",
    port: options.port,
    ...(first ? { certificate: first } : {}),
    http2: options.http2 ?? false,
    handler: (req, res) => {
      const reply = (status: number, body: unknown) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify(body));
      };
      if (req.method !== "POST" || req.url?.split("?")[0] !== MUTATE_APPLICATION_PATH) {
        return reply(404, { error: "not found" });
      }
      const chunks: Buffer[] = [];
      let size = 0;
      req.on("data", (c: Buffer) => {
        size += c.length;
        if (size > MAX_BODY) req.destroy();
        else chunks.push(c);
      });
      req.on("end", async () => {
        let review: { apiVersion?: string; kind?: string; request?: AdmissionRequest };
        try {
          review = JSON.parse(Buffer.concat(chunks).toString("utf8"));
        } catch {
          return reply(400, { error: "the body is not an AdmissionReview" });
        }
        const request = review.request;
        if (review.kind !== "AdmissionReview" || !request?.uid) {
          return reply(400, { error: "no AdmissionReview request" });
        }
        let response;
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
        reply(200, { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", response });
      });
    },
  });
  let serving = first !== undefined;
  const unsubscribe = options.certificate.subscribe((c) => {
    try {
      server.setCertificate(c);
      serving = true;
    } catch (err) {
      options.onCertificateError?.(err as Error);
    }
  });
  return {
    port: server.port,
    serving: () => serving,
    close: async () => {
      unsubscribe();
      await server.close();
    },
  };
}
