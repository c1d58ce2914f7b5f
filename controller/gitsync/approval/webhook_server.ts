/**
 * The admission webhook's HTTPS endpoint (seed sections 4 and 5.1; port 9443 in the manager): the API
 * server POSTs an admission.k8s.io/v1 AdmissionReview for every Application create and update, and
 * the answer carries reviewApplication's decision. Registered with failurePolicy Fail, so no
 * Application changes while the webhook is down (fails closed). TLS comes from the certificate files
 * the manager is given (--webhook-cert-path); they are re-read when they change on disk, as
 * cert-manager rotates them.
 *
 * @example
 * const server = await startWebhookServer({
 *   port: 9443, certFile: "/tmp/k8s-webhook-server/serving-certs/tls.crt", keyFile: ".../tls.key",
 *   planDigest: (ns, name) => revisions.get(`${ns}/${name}`)?.status?.plan?.digest,
 * });
 */
import { readFileSync, statSync } from "node:fs";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { type AdmissionRequest, type PlanDigestLookup, reviewApplication } from "./review.ts";

export const MUTATE_APPLICATION_PATH = "/mutate-sync-gitsync-io-v1alpha1-application";
/** AdmissionReviews are small; anything bigger is not from the API server. */
const MAX_BODY = 3 * 1024 * 1024;

export interface WebhookServerOptions {
  host?: string;
  port: number;
  certFile: string;
  keyFile: string;
  planDigest: PlanDigestLookup;
  /** Called for each refused or failed review, for logs and Events; never given the object. */
  onDecision?: (d: { uid: string; user?: string; allowed: boolean; message?: string }) => void;
}

export interface WebhookServer {
  /** The bound port (useful with port 0). */
  port: number;
  close(): Promise<void>;
}

export async function startWebhookServer(options: WebhookServerOptions): Promise<WebhookServer> {
  let loaded = { mtimes: "", cert: "", key: "" };
  const tls = () => {
    const mtimes = `${statSync(options.certFile).mtimeMs}/${statSync(options.keyFile).mtimeMs}`;
    if (mtimes !== loaded.mtimes) {
      loaded = {
        mtimes,
        cert: readFileSync(options.certFile, "utf8"),
        key: readFileSync(options.keyFile, "utf8"),
      };
    }
    return loaded;
  };
  const first = tls();
  const server: Server = createServer(
    { cert: first.cert, key: first.key, minVersion: "TLSv1.2" },
    (req, res) => {
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
          response = await reviewApplication(request, options.planDigest);
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
  );
  // A client that fails the handshake is the client's problem; it must not stop the server.
  server.on("tlsClientError", () => {});
  // Rotated certificates (cert-manager rewrites the files) are picked up within 10 s.
  const refresh = setInterval(() => {
    try {
      const before = loaded.mtimes;
      const now = tls();
      if (now.mtimes !== before) server.setSecureContext({ cert: now.cert, key: now.key });
    } catch {
      // Mid-rotation: keep the current certificate until both files are readable.
    }
  }, 10_000);
  refresh.unref?.();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host ?? "0.0.0.0", () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise((resolve) => {
        clearInterval(refresh);
        server.close(() => resolve());
        // Keep-alive connections from the API server would hold close() open until they time out.
        server.closeAllConnections?.();
      }),
  };
}
