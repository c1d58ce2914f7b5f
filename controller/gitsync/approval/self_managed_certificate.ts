/**
 * The admission webhook's certificate when no cert-manager is installed (`--webhook-cert-secret`), done as
 * controller-runtime's cert-controller (OPA Gatekeeper), Kyverno and others do it: the manager keeps its own
 * CA and a serving certificate for the webhook Service in a Secret, renews them before they expire, and
 * writes the CA into the webhook configurations' `caBundle`.
 *
 * Several replicas do not fight: only the leader writes (`rotate`, while it leads); every replica serves
 * what the Secret holds (`run`: a watch on that one Secret), so a renewed certificate reaches all of them
 * within moments. Writes carry the resourceVersion read, so a stale leader loses with a conflict.
 *
 * Renewal: a certificate is renewed when a third of its lifetime is left (cert-manager's default), or when
 * it was issued for longer than the current settings allow. A new CA goes into the caBundle next to the
 * previous one, and the bundle is written before the Secret: the API server trusts the new CA before any
 * replica serves a certificate from it, and a replica still serving the previous certificate stays
 * trusted until it has the new one (the previous CA is dropped when that certificate expires, at most a
 * certificate lifetime or ten minutes after the change, whichever is shorter).
 *
 * Secret keys: tls.crt, tls.key (what is served), ca.crt, ca.key (the current CA), and while it is still
 * trusted ca-previous.crt (annotation sync.gitsync.io/ca-previous-until says until when).
 */
import { createPrivateKey, X509Certificate } from "node:crypto";
import {
  Informer,
  isKubeApiError,
  type KubeClient,
  type KubeObject,
  sleep,
  withoutFieldBookkeeping,
} from "../../../internal/k8s/mod.ts";
import type { Logger } from "../../../internal/log/mod.ts";
import type { ServingCertificate } from "../tls_listener.ts";
import type { CertificateSource } from "./certificate_source.ts";
import { issueCa, issueServing, type KeyPair } from "./x509.ts";
import { CA_PREVIOUS_UNTIL_ANNOTATION } from "../api/mod.ts";

export { WEBHOOK_CERT_SECRET, WEBHOOK_CONFIGURATION, WEBHOOK_SERVICE } from "./webhook_names.ts";
export const DEFAULT_CERT_VALIDITY_MS = 365 * 24 * 3600_000;
export const DEFAULT_CA_VALIDITY_MS = 10 * DEFAULT_CERT_VALIDITY_MS;

export interface WebhookConfigurationRef {
  kind: "MutatingWebhookConfiguration" | "ValidatingWebhookConfiguration";
  name: string;
}

export interface SelfManagedCertificateOptions {
  client: KubeClient;
  /** The manager's namespace: where the Secret and the webhook Service are. */
  namespace: string;
  secretName: string;
  /** The Service the API server calls; the certificate names it (`<service>.<namespace>.svc`, ...). */
  serviceName: string;
  /** Configurations whose webhooks get the CA as caBundle. */
  configurations: WebhookConfigurationRef[];
  /** Lifetime of a serving certificate; default one year. */
  validityMs?: number;
  /** Lifetime of the CA; default ten years. */
  caValidityMs?: number;
  log: Logger;
  now?: () => Date;
}

interface Secret extends KubeObject {
  type?: string;
  data?: Record<string, string>;
}
interface WebhookConfiguration extends KubeObject {
  webhooks?: { name: string; clientConfig?: { caBundle?: string } }[];
}

const ADMISSION = "/apis/admissionregistration.k8s.io/v1";
const plural = (kind: WebhookConfigurationRef["kind"]) => `${kind.toLowerCase()}s`;
/** Longest sleep between two checks (timers cannot wait years); events wake the leader earlier. */
const MAX_WAIT_MS = 3600_000;
/** Lets the API server's webhook cache take a new caBundle before a certificate from the new CA is served. */
const CA_SETTLE_MS = 1_000;
/** How long a previous CA stays trusted at most: replicas take a new Secret from their watch in moments. */
const PREVIOUS_CA_GRACE_MS = 10 * 60_000;

export class SelfManagedCertificate implements CertificateSource {
  private served: ServingCertificate | undefined;
  private readonly listeners = new Set<(c: ServingCertificate) => void>();
  private readonly secretEvents = new Set<() => void>();
  private readonly validityMs: number;
  private readonly caValidityMs: number;
  private readonly now: () => Date;
  private readonly dnsNames: string[];

  constructor(private readonly o: SelfManagedCertificateOptions) {
    this.validityMs = o.validityMs ?? DEFAULT_CERT_VALIDITY_MS;
    this.caValidityMs = o.caValidityMs ?? DEFAULT_CA_VALIDITY_MS;
    this.now = o.now ?? (() => new Date());
    const svc = o.serviceName;
    const ns = o.namespace;
    this.dnsNames = [`${svc}.${ns}.svc`, `${svc}.${ns}.svc.cluster.local`, `${svc}.${ns}`, svc];
  }

  current(): ServingCertificate | undefined {
    return this.served;
  }

  subscribe(listener: (c: ServingCertificate) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Every replica: serves what the Secret holds, until `signal` aborts. */
  run(signal: AbortSignal): Promise<void> {
    const secrets = new Informer<Secret>(this.o.client, {
      path: `/api/v1/namespaces/${this.o.namespace}/secrets`,
      fieldSelector: `metadata.name=${this.o.secretName}`,
      transform: withoutFieldBookkeeping,
      onError: (err) =>
        this.o.log.warn("watch of the webhook certificate Secret failed; retrying", {
          secret: `${this.o.namespace}/${this.o.secretName}`,
          error: (err as Error).message,
        }),
    });
    secrets.onEvent((e) => {
      for (const poke of this.secretEvents) poke();
      if (e.type === "delete") return; // Keep serving; the leader writes a new one.
      const pair = servingPair(decode(e.object.data));
      if (!pair || (pair.cert === this.served?.cert && pair.key === this.served?.key)) return;
      this.served = pair;
      for (const l of this.listeners) l(pair);
    });
    return secrets.run(signal);
  }

  /** The leader: keeps the Secret and the caBundles current until `leading` aborts. */
  async rotate(leading: AbortSignal): Promise<void> {
    const configs = this.o.configurations.map((ref) => {
      const informer = new Informer<WebhookConfiguration>(this.o.client, {
        path: `${ADMISSION}/${plural(ref.kind)}`,
        fieldSelector: `metadata.name=${ref.name}`,
        transform: withoutFieldBookkeeping,
        onError: (err) =>
          this.o.log.warn("watch of the webhook configuration failed; retrying", {
            configuration: ref.name,
            error: (err as Error).message,
          }),
      });
      return { ref, informer };
    });
    let pending = true;
    let wake: (() => void) | undefined;
    const poke = () => {
      pending = true;
      wake?.();
    };
    for (const c of configs) c.informer.onEvent(poke);
    this.secretEvents.add(poke);
    const watches = configs.map((c) => c.informer.run(leading));
    try {
      // The Secret does not wait for the configurations (a missing one, or no right to read it, is logged).
      await Promise.race([Promise.all(configs.map((c) => c.informer.synced)), sleep(10_000, leading)]);
      let delay = 0;
      let failures = 0;
      while (!leading.aborted) {
        if (pending) {
          pending = false;
          try {
            delay = await this.check(configs, leading);
            failures = 0;
          } catch (err) {
            failures++;
            delay = Math.min(1_000 * 2 ** failures, 60_000);
            this.o.log.warn("webhook certificate check failed; retrying", {
              secret: `${this.o.namespace}/${this.o.secretName}`,
              error: (err as Error).message,
              retryInMs: delay,
            });
          }
        }
        if (pending || leading.aborted) continue;
        await new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            leading.removeEventListener("abort", done);
            wake = undefined;
            resolve();
          };
          const timer = setTimeout(() => {
            pending = true;
            done();
          }, delay);
          wake = done;
          leading.addEventListener("abort", done, { once: true });
        });
      }
    } finally {
      this.secretEvents.delete(poke);
      await Promise.allSettled(watches);
    }
  }

  /** One check: renews what is due, writes caBundles then the Secret; returns ms until the next check. */
  private async check(
    configs: { ref: WebhookConfigurationRef; informer: Informer<WebhookConfiguration> }[],
    leading: AbortSignal,
  ): Promise<number> {
    const { client, namespace, secretName, log } = this.o;
    const path = `/api/v1/namespaces/${namespace}/secrets/${secretName}`;
    const now = this.now().getTime();
    let secret: Secret | undefined;
    try {
      secret = await client.request<Secret>({ path });
    } catch (err) {
      if (!isKubeApiError(err, 404)) throw err;
    }
    const data = decode(secret?.data);

    // The CA: kept while valid and not due.
    const oldCa = readCa(data);
    const caDue = !oldCa || this.due(oldCa.notAfter, this.caValidityMs, now);
    let ca = oldCa!;
    if (caDue) {
      const pair = await issueCa({
        commonName: `${this.o.serviceName}-ca`,
        notAfter: new Date(now + this.caValidityMs),
      });
      ca = { pair, x509: new X509Certificate(pair.cert), notAfter: now + this.caValidityMs };
    }

    // The serving certificate: kept while it is the CA's, names the Service and is not due.
    const served = servingPair(data);
    const servedX509 = served && parseCert(served.cert);
    const servedUntil = servedX509 ? Date.parse(servedX509.validTo) : 0;
    const leafOk = !caDue && servedX509 && servedX509.verify(ca.x509.publicKey) &&
      this.dnsNames.every((n) => servedX509.checkHost(n) === n) &&
      !this.due(servedUntil, this.validityMs, now);
    const leafUntil = leafOk ? servedUntil : Math.min(now + this.validityMs, ca.notAfter);
    const leaf: KeyPair = leafOk
      ? served!
      : await issueServing(ca.pair, { dnsNames: this.dnsNames, notAfter: new Date(leafUntil) });

    // The previous CA stays trusted while replicas may still serve the certificate it signed.
    let previous: { cert: string; until: number } | undefined;
    const keptUntil = Date.parse(secret?.metadata?.annotations?.[CA_PREVIOUS_UNTIL_ANNOTATION] ?? "");
    if (!caDue && data["ca-previous.crt"] && keptUntil > now) {
      previous = { cert: data["ca-previous.crt"], until: keptUntil };
    } else if (caDue && oldCa && servedX509?.verify(oldCa.x509.publicKey) && servedUntil > now) {
      previous = {
        cert: oldCa.pair.cert,
        until: Math.min(servedUntil, now + Math.min(this.validityMs, PREVIOUS_CA_GRACE_MS)),
      };
    }
    const bundle = [ca.pair.cert, ...(previous ? [previous.cert] : [])];

    // caBundles first, so that the API server trusts a new CA before anyone serves a certificate from it.
    const caBundle = Buffer.from(bundle.join("")).toString("base64");
    let bundleWritten = false;
    for (const { ref, informer } of configs) {
      const config = informer.get(ref.name);
      if (!config) {
        log.warn("webhook configuration not found; its caBundle is written once it exists", {
          configuration: `${ref.kind}/${ref.name}`,
        });
        continue;
      }
      const stale = (config.webhooks ?? []).filter((w) => w.clientConfig?.caBundle !== caBundle);
      if (!stale.length) continue;
      // Strategic merge: webhooks merge by name, so only each caBundle changes.
      await client.request({
        method: "PATCH",
        path: `${ADMISSION}/${plural(ref.kind)}/${ref.name}`,
        contentType: "application/strategic-merge-patch+json",
        body: { webhooks: stale.map((w) => ({ name: w.name, clientConfig: { caBundle } })) },
      });
      bundleWritten = true;
      log.info("webhook caBundle written", { configuration: `${ref.kind}/${ref.name}`, cas: bundle.length });
    }
    if (bundleWritten && previous && caDue) await sleep(CA_SETTLE_MS, leading);

    const wanted: Record<string, string> = {
      "tls.crt": leaf.cert,
      "tls.key": leaf.key,
      "ca.crt": ca.pair.cert,
      "ca.key": ca.pair.key,
      ...(previous ? { "ca-previous.crt": previous.cert } : {}),
    };
    const until = previous ? new Date(previous.until).toISOString() : undefined;
    const changed = Object.entries(wanted).some(([k, v]) => data[k] !== v) ||
      (!previous && "ca-previous.crt" in data) ||
      secret?.metadata?.annotations?.[CA_PREVIOUS_UNTIL_ANNOTATION] !== until;
    if (changed) {
      const { "ca-previous.crt": _, ...kept } = secret?.data ?? {};
      const { [CA_PREVIOUS_UNTIL_ANNOTATION]: _until, ...annotations } = secret?.metadata?.annotations ?? {};
      const body = {
        apiVersion: "v1",
        kind: "Secret",
        metadata: {
          ...(secret?.metadata ??
            { name: secretName, namespace, labels: { "app.kubernetes.io/name": "gitsync-manager" } }),
          annotations: { ...annotations, ...(until ? { [CA_PREVIOUS_UNTIL_ANNOTATION]: until } : {}) },
        },
        type: secret?.type ?? "Opaque",
        data: { ...kept, ...encode(wanted) },
      };
      if (secret) await client.request({ method: "PUT", path, body });
      else await client.request({ method: "POST", path: `/api/v1/namespaces/${namespace}/secrets`, body });
      if (!leafOk || caDue) {
        log.info("webhook certificate issued", {
          secret: `${namespace}/${secretName}`,
          notAfter: new Date(leafUntil).toISOString(),
          ...(caDue ? { newCa: true, caNotAfter: new Date(ca.notAfter).toISOString() } : {}),
        });
      }
    }

    // Next check: when the certificate or the CA falls due, or the previous CA leaves the bundle.
    const times = [
      leafUntil - this.validityMs / 3,
      ca.notAfter - this.caValidityMs / 3,
      ...(previous ? [previous.until] : []),
    ];
    return Math.max(1_000, Math.min(MAX_WAIT_MS, Math.min(...times) - now + 10));
  }

  /** Due for renewal: a third of `lifetime` left, or valid for longer than `lifetime` allows now. */
  private due(notAfter: number, lifetimeMs: number, now: number): boolean {
    const left = notAfter - now;
    return left < lifetimeMs / 3 || left > lifetimeMs + 10 * 60_000;
  }
}

function decode(data: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(data ?? {})) out[k] = Buffer.from(v, "base64").toString("utf8");
  return out;
}

function encode(data: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(data)) out[k] = Buffer.from(v).toString("base64");
  return out;
}

function parseCert(pem: string): X509Certificate | undefined {
  try {
    return new X509Certificate(pem);
  } catch {
    return undefined;
  }
}

/** The pair in tls.crt/tls.key of a Secret's (decoded) data, if it is a certificate and its key. */
function servingPair(data: Record<string, string>): KeyPair | undefined {
  const cert = data["tls.crt"];
  const key = data["tls.key"];
  if (!cert || !key) return undefined;
  try {
    return new X509Certificate(cert).checkPrivateKey(createPrivateKey(key)) ? { cert, key } : undefined;
  } catch {
    return undefined;
  }
}

/** The CA in ca.crt/ca.key if it is a P-256 CA certificate and its key (what issueServing signs with). */
function readCa(data: Record<string, string>) {
  const cert = data["ca.crt"];
  const key = data["ca.key"];
  if (!cert || !key) return undefined;
  try {
    const x509 = new X509Certificate(cert);
    const k = createPrivateKey(key);
    if (!x509.ca || !x509.checkPrivateKey(k) || k.asymmetricKeyDetails?.namedCurve !== "prime256v1") {
      return undefined;
    }
    return { pair: { cert, key }, x509, notAfter: Date.parse(x509.validTo) };
  } catch {
    return undefined;
  }
}
