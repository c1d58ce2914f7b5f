/**
 * `gitsync-manager console` once its flags are valid (cmd/gitsync-manager/console.ts checks them): the
 * kubeconfig's API server and CA, the OIDC provider's discovery in OIDC mode, the pages when built, and
 * the console served until a stop signal. Loaded only by `console`.
 */
import { CliError } from "../../../internal/cli/cli_error.ts";
import { serve } from "../../../internal/http/mod.ts";
import { loadKubeconfig } from "../../../internal/k8s/mod.ts";
import { createLogger, type LogLevel } from "../../../internal/log/mod.ts";
import { OidcClient } from "../../../internal/oidc/mod.ts";
import { consoleApp, type OidcMode } from "./app.ts";
import { loadConsoleBundle } from "./page.ts";

export interface ConsoleConfig {
  bind: { host: string; port: number };
  sessionKey: Uint8Array;
  logLevel: LogLevel;
  kubeconfig?: string;
  context?: string;
  /** OIDC sign-in instead of tokens: the client to discover and the claims to impersonate. */
  oidc?: {
    issuer: string;
    clientId: string;
    clientSecret?: string;
    redirectUrl: string;
    usernameClaim: string;
    groupsClaim: string;
  };
}

/** Serves the console; resolves never (the process ends on a stop signal). */
export async function serveConsole(c: ConsoleConfig): Promise<never> {
  const log = createLogger({ level: c.logLevel, bindings: { service: "gitsync-console" } });
  const config = loadKubeconfig({
    ...(c.kubeconfig ? { path: c.kubeconfig } : {}),
    ...(c.context ? { context: c.context } : {}),
  });
  let oidc: OidcMode | undefined;
  if (c.oidc) {
    const { usernameClaim, groupsClaim, ...client } = c.oidc;
    try {
      oidc = { client: await OidcClient.discover(client), serviceConfig: config, usernameClaim, groupsClaim };
    } catch (err) {
      throw new CliError(`OIDC: ${(err as Error).message}`);
    }
  }
  const bundle = await loadConsoleBundle();
  if (!bundle) {
    log.warn("the console's pages are not built (deno task build gitsync-manager); serving the API only");
  }
  const app = consoleApp({
    log,
    cluster: config.cluster,
    sessionKey: c.sessionKey,
    bundle,
    ...(oidc ? { oidc } : {}),
  });
  serve(app, { hostname: c.bind.host, port: c.bind.port, log });
  log.info("console ready", { mode: oidc ? "oidc" : "token", apiServer: config.cluster.server });
  return await new Promise(() => {}); // Runs until a stop signal.
}
