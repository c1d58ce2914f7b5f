/**
 * `edgectl web`: the dashboard, served from the binary. Options parse into a config, `validate`
 * checks them before any I/O (listen address, URLs, TLS and OIDC flags that only work together), then
 * the server starts with the kubeconfig's client and, with OIDC, the provider's discovery document
 * (server/edgectl-web/serve.ts, loaded only by this command).
 */
import { type Command, Option } from "@commander-js/extra-typings";
import { addExamples, type Io } from "../../internal/cli/mod.ts";
import { parseEndpoint } from "../../internal/edgeproxy/endpoint.ts";
import { kubeClient, proxyNamespaceOption, useKubeOptions, withServerOptions } from "./flags.ts";
import type { WebConfig } from "../../server/edgectl-web/serve.ts";

/** This machine only: without OIDC anyone who reaches the address acts with your kubeconfig's identity. */
export const DEFAULT_LISTEN = "127.0.0.1:9080";

/** `host:port`, `:port` (every interface) or `[v6]:port`. */
export function parseListen(text: string): { hostname: string; port: number } | undefined {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:\s]*)):(\d{1,5})$/.exec(text);
  if (!m) return undefined;
  const port = Number(m[3]);
  if (port > 65535) return undefined;
  return { hostname: m[1] ?? (m[2] || "0.0.0.0"), port };
}

export interface WebFlags {
  listen: string;
  address?: string;
  prometheusUrl: string;
  prometheusEndpoint?: string;
  traceEndpoint: string;
  jaegerEndpoint?: string;
  tlsCert?: string;
  tlsKey?: string;
  oidcIssuer?: string;
  oidcClientId?: string;
  oidcClientSecret?: string;
  readOnly: boolean;
}

/** The config of the flags, or the usage error to print. */
export function validateWebFlags(flags: WebFlags): WebConfig | string {
  const listenText = flags.address ?? flags.listen;
  const listen = parseListen(listenText);
  if (!listen) return `--listen: "${listenText}" is not host:port or :port (e.g. 127.0.0.1:9080)`;
  const prometheus = parseEndpoint(flags.prometheusEndpoint ?? flags.prometheusUrl, "--prometheus-url");
  if (typeof prometheus === "string") return prometheus;
  const jaeger = parseEndpoint(flags.jaegerEndpoint ?? flags.traceEndpoint, "--trace-endpoint");
  if (typeof jaeger === "string") return jaeger;
  if (!!flags.tlsCert !== !!flags.tlsKey) return "--tls-cert and --tls-key go together: give both or neither";
  const oidcSet = [flags.oidcIssuer, flags.oidcClientId].filter((v) => v !== undefined).length;
  if (oidcSet === 1 || (flags.oidcClientSecret !== undefined && oidcSet === 0)) {
    return "OIDC needs --oidc-issuer and --oidc-client-id (and --oidc-client-secret for a confidential client)";
  }
  if (flags.oidcIssuer !== undefined) {
    let issuer: URL;
    try {
      issuer = new URL(flags.oidcIssuer);
    } catch {
      return `--oidc-issuer: "${flags.oidcIssuer}" is not a URL`;
    }
    const loopback = ["localhost", "127.0.0.1", "[::1]"].includes(issuer.hostname);
    if (issuer.protocol !== "https:" && !(issuer.protocol === "http:" && loopback)) {
      return "--oidc-issuer must be an https URL (http only on localhost)";
    }
  }
  return {
    ...listen,
    prometheus,
    jaeger,
    ...(flags.tlsCert ? { tls: { certFile: flags.tlsCert, keyFile: flags.tlsKey! } } : {}),
    ...(flags.oidcIssuer
      ? {
        oidc: {
          issuer: flags.oidcIssuer,
          clientId: flags.oidcClientId!,
          ...(flags.oidcClientSecret !== undefined ? { clientSecret: flags.oidcClientSecret } : {}),
        },
      }
      : {}),
    readOnly: flags.readOnly,
  };
}

export function registerWeb(program: Command, _io: Io) {
  const command = withServerOptions(
    withServerOptions(
      program
        .command("web")
        .summary("Serve the dashboard: resources, routes → backends, live metrics, traces and access logs")
        .description(
          "Serve a web dashboard of the edge proxy: every resource kind with its Ready condition, the routes → " +
            "backends topology, live traffic charts from Prometheus, recent traces from Jaeger and the agents' " +
            "access logs. Kubernetes is read (and, without --read-only, written: apply and delete) with your " +
            "kubeconfig's identity, or with OIDC as the signed-in user through impersonation, which then needs " +
            "the impersonate verb for the kubeconfig's identity. Without OIDC anyone who reaches --listen acts " +
            "as you, so it listens on 127.0.0.1 unless told otherwise (--listen :9080 for every interface, " +
            "with OIDC). The OIDC redirect URL to register with the " +
            "provider is <dashboard URL>/auth/callback.",
        )
        .addOption(
          new Option("--listen <address>", "Address to listen on, host:port or :port (every interface)")
            .default(
              DEFAULT_LISTEN,
            ),
        )
        .addOption(new Option("--address <address>", "Same as --listen").hideHelp()),
      "prometheus",
    ),
    "jaeger",
  )
    .option("--tls-cert <file>", "Serve HTTPS with this certificate (PEM; with --tls-key)")
    .option("--tls-key <file>", "Private key of --tls-cert (PEM)")
    .option("--oidc-issuer <url>", "Require sign-in with this OpenID Connect issuer")
    .option("--oidc-client-id <id>", "Client id registered with the OIDC issuer")
    .addOption(
      new Option("--oidc-client-secret <secret>", "Client secret (prefer the environment variable)").env(
        "EDGECTL_OIDC_CLIENT_SECRET",
      ),
    )
    .option("--read-only", "Only show: no apply or delete", false)
    .addOption(proxyNamespaceOption())
    .action(async (flags, cmd) => {
      const config = validateWebFlags(flags as WebFlags);
      if (typeof config === "string") cmd.error(`error: ${config}`);
      // The server (Hono, the Kubernetes client, OIDC) loads here: other commands never evaluate it.
      const { serveWeb } = await import("../../server/edgectl-web/serve.ts");
      await serveWeb(config as WebConfig, {
        kube: () => kubeClient(cmd),
        proxyNamespace: flags.proxyNamespace,
      });
    });
  useKubeOptions(command);
  addExamples(command, [
    "# The dashboard on this machine only (the default address)\nedgectl web",
    "# Read-only, with Prometheus and Jaeger in the cluster (port-forwarded)\nedgectl web --read-only --prometheus-url http://localhost:9090 --trace-endpoint http://localhost:16686",
    "# HTTPS with OIDC sign-in; each user acts as themselves through impersonation\nEDGECTL_OIDC_CLIENT_SECRET=... edgectl web --listen :9443 --tls-cert tls.crt --tls-key tls.key \\\n  --oidc-issuer https://idp.example.com --oidc-client-id edgectl",
  ]);
}
