/**
 * Where the admission webhook's serving certificate comes from. Three sources, one interface:
 * files (cert-manager's or your own Secret mounted at --webhook-cert-path, re-read when rotated),
 * the manager's own Secret (self_managed_certificate.ts), or a fixed pair (--local-webhook).
 */
import { readFileSync, statSync } from "node:fs";
import type { ServingCertificate } from "../tls_listener.ts";

export interface CertificateSource {
  /** The certificate to serve now; undefined while there is none yet (the listener refuses handshakes). */
  current(): ServingCertificate | undefined;
  /** Calls `listener` with each new certificate; returns the unsubscribe function. */
  subscribe(listener: (c: ServingCertificate) => void): () => void;
}

/** A pair that never changes. */
export function fixedCertificate(c: ServingCertificate): CertificateSource {
  return { current: () => c, subscribe: () => () => {} };
}

/**
 * PEM files, re-read within `intervalMs` (default 10 s) of a change on disk: cert-manager rotates the
 * Secret, the kubelet rewrites the mounted files. A half-written pair keeps the current one.
 */
export function certificateFiles(certFile: string, keyFile: string, intervalMs = 10_000): CertificateSource {
  const stamp = () => `${statSync(certFile).mtimeMs}/${statSync(keyFile).mtimeMs}`;
  let loaded = { stamp: stamp(), cert: readFileSync(certFile, "utf8"), key: readFileSync(keyFile, "utf8") };
  const listeners = new Set<(c: ServingCertificate) => void>();
  let timer: ReturnType<typeof setInterval> | undefined;
  const poll = () => {
    try {
      const now = stamp();
      if (now === loaded.stamp) return;
      loaded = { stamp: now, cert: readFileSync(certFile, "utf8"), key: readFileSync(keyFile, "utf8") };
      for (const l of listeners) l({ cert: loaded.cert, key: loaded.key });
    } catch {
      // Mid-rotation: keep the current pair until both files are readable.
    }
  };
  return {
    current: () => ({ cert: loaded.cert, key: loaded.key }),
    subscribe(listener) {
      listeners.add(listener);
      timer ??= setInterval(poll, intervalMs);
      timer.unref?.();
      return () => {
        listeners.delete(listener);
        if (!listeners.size && timer) {
          clearInterval(timer);
          timer = undefined;
        }
      };
    },
  };
}
