/**
 * `edgectl web` once its flags are valid: the kubeconfig's client, OIDC when asked for, the dashboard's
 * app, and the listener. Loaded only by `edgectl web` (Hono, jose and the Kubernetes client are much of
 * what edgectl would otherwise evaluate at every start).
 */
import { readFileSync } from "node:fs";
import { CliError } from "../../internal/cli/mod.ts";
import { serve } from "../../internal/http/mod.ts";
import type { KubeClient } from "../../internal/k8s/mod.ts";
import { createLogger } from "../../internal/log/mod.ts";
import { OidcClient } from "../../internal/oidc/mod.ts";
import { JaegerClient } from "../../internal/edgeproxy/jaeger_client.ts";
import { PrometheusClient } from "../../internal/edgeproxy/prometheus_client.ts";
import { createWebApp, type WebOidc } from "./app.ts";
import { loadWebBundle } from "./page.ts";
import type { Endpoint } from "../../internal/edgeproxy/endpoint.ts";

/** `edgectl web`'s flags, validated. */
export interface WebConfig {
  hostname: string;
  port: number;
  prometheus: Endpoint;
  jaeger: Endpoint;
  tls?: { certFile: string; keyFile: string };
  oidc?: { issuer: string; clientId: string; clientSecret?: string };
  readOnly: boolean;
}

/** Serves the dashboard until a stop signal (serve() handles SIGTERM and SIGINT and exits). */
export async function serveWeb(
  c: WebConfig,
  flags: { kube: () => Promise<KubeClient>; proxyNamespace: string },
): Promise<never> {
  let tls: { cert: string; key: string } | undefined;
  if (c.tls) {
    try {
      tls = { cert: readFileSync(c.tls.certFile, "utf8"), key: readFileSync(c.tls.keyFile, "utf8") };
    } catch (err) {
      throw new CliError(`cannot read the TLS certificate or key: ${(err as Error).message}`);
    }
  }
  const kube = await flags.kube();
  const oidc = c.oidc ? await oidcFor(c.oidc) : undefined;
  const log = createLogger({ bindings: { service: "edgectl-web" } });
  const app = createWebApp({
    log,
    kube,
    readOnly: c.readOnly,
    tls: !!tls,
    ...(oidc ? { oidc } : {}),
    prometheus: new PrometheusClient(c.prometheus, 15_000),
    jaeger: new JaegerClient(c.jaeger, 15_000),
    proxyNamespace: flags.proxyNamespace,
    bundle: await loadWebBundle(),
  });
  serve(app, {
    hostname: c.hostname,
    port: c.port,
    log,
    ...(tls ? { tls } : {}),
    onClose: () => Promise.resolve(kube.close()),
  });
  if (!oidc && !["127.0.0.1", "localhost", "::1"].includes(c.hostname)) {
    log.warn("without OIDC anyone who reaches this address acts with your kubeconfig's identity", {
      listen: `${c.hostname}:${c.port}`,
      hint: "use --listen 127.0.0.1:9080, or --oidc-issuer and --oidc-client-id",
    });
  }
  log.info("edgectl web ready", {
    readOnly: c.readOnly,
    auth: oidc ? "oidc" : "kubeconfig",
    prometheus: c.prometheus.url,
    traces: c.jaeger.url,
  });
  return await new Promise<never>(() => {});
}

/** One relying party per origin the dashboard is opened at (the redirect URL names it). */
async function oidcFor(o: NonNullable<WebConfig["oidc"]>): Promise<WebOidc> {
  const clients = new Map<string, Promise<OidcClient>>();
  const clientFor = (origin: string) => {
    let c = clients.get(origin);
    if (!c) {
      c = OidcClient.discover({ ...o, redirectUrl: `${origin}/auth/callback` });
      c.catch(() => clients.delete(origin));
      clients.set(origin, c);
    }
    return c;
  };
  // Fail at start, not at the first sign-in, when the issuer is wrong or unreachable.
  try {
    await OidcClient.discover({ ...o, redirectUrl: "http://localhost/auth/callback" });
  } catch (err) {
    throw new CliError(`--oidc-issuer: ${(err as Error).message}`);
  }
  return { clientFor };
}
