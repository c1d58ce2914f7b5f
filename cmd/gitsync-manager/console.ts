/** `gitsync-manager console`: the read-only web console (controller/gitsync/console). */
import { type Command, Option } from "@commander-js/extra-typings";
import { addExamples } from "../../internal/cli/mod.ts";
import { LOG_LEVELS, type LogLevel } from "../../internal/log/mod.ts";
import { parseBindAddress } from "../../controller/gitsync/manager/options.ts";

export const SESSION_KEY_ENV = "GITSYNC_CONSOLE_SESSION_KEY";
export const OIDC_SECRET_ENV = "GITSYNC_CONSOLE_OIDC_CLIENT_SECRET";

export function registerConsole(program: Command) {
  const command = program
    .command("console")
    .summary("Serve the read-only web console (token or OIDC sign-in)")
    .description(
      "Serve the read-only web console: Applications, Revisions (plan with diffs, hooks, approval, diagnosis), " +
        "Repositories and each Application's live resource graph. Nothing can be changed from it.\n\n" +
        "Sign-in: by default with a Kubernetes bearer token, validated by a SelfSubjectReview (Kubernetes 1.28+); " +
        "every read carries that token and nothing else, so RBAC decides what each user sees. With --oidc-issuer: " +
        "OpenID Connect (code flow with PKCE S256); reads then impersonate the signed-in user and groups with the " +
        "console's own service account. The session lives only in an AES-256-GCM encrypted cookie and ends at " +
        "token expiry, 8 hours after sign-in, or at a 401 from the API server.\n\n" +
        `Environment: ${SESSION_KEY_ENV} (the session key, 64 hex characters, when --session-key-file is not ` +
        `given), ${OIDC_SECRET_ENV} (instead of --oidc-client-secret).`,
    )
    .option(
      "--bind-address <address>",
      "Where the console listens (HTTP; put TLS in front, cookies are Secure)",
      ":8080",
    )
    .option(
      "--kubeconfig <path>",
      "Kubeconfig for the API server's address and CA (default: $KUBECONFIG, ~/.kube/config, then in-cluster); " +
        "its credentials are used only in OIDC mode, to impersonate",
    )
    .option("--context <name>", "Kubeconfig context to use (default: current-context)")
    .option(
      "--session-key-file <path>",
      `File with the 32-byte session key (raw, hex or base64); else $${SESSION_KEY_ENV}`,
    )
    .option("--oidc-issuer <url>", "OIDC issuer URL; set: OIDC sign-in instead of tokens")
    .option("--oidc-client-id <id>", "OIDC client id")
    .option("--oidc-client-secret <secret>", `OIDC client secret (prefer $${OIDC_SECRET_ENV})`)
    .option(
      "--oidc-redirect-url <url>",
      "This console's callback as registered: https://<host>/auth/oidc/callback",
    )
    .option("--oidc-username-claim <claim>", "ID token claim impersonated as the user", "sub")
    .option("--oidc-groups-claim <claim>", "ID token claim impersonated as the groups", "groups")
    .addOption(
      new Option("--log-level <level>", "Lowest level logged").choices(LOG_LEVELS).default(
        "info" as LogLevel,
      ),
    )
    .action(async (flags, cmd) => {
      // The console's server, OIDC client and Kubernetes client load when it serves, not at every start.
      const { loadSessionKey } = await import("../../controller/gitsync/console/session_cookie.ts");
      // Validate everything before connecting anywhere.
      let bind: { host: string; port: number };
      try {
        bind = parseBindAddress(flags.bindAddress);
      } catch (err) {
        return cmd.error(`--bind-address: ${(err as Error).message}`);
      }
      const oidcFlags = [flags.oidcIssuer, flags.oidcClientId, flags.oidcRedirectUrl];
      if (oidcFlags.some(Boolean) && !oidcFlags.every(Boolean)) {
        return cmd.error("OIDC needs --oidc-issuer, --oidc-client-id and --oidc-redirect-url together");
      }
      if (flags.oidcRedirectUrl && !/\/auth\/oidc\/callback$/.test(new URL(flags.oidcRedirectUrl).pathname)) {
        return cmd.error("--oidc-redirect-url must end in /auth/oidc/callback");
      }
      let sessionKey: Uint8Array;
      try {
        sessionKey = flags.sessionKeyFile
          ? loadSessionKey({ file: flags.sessionKeyFile })
          : loadSessionKey({ value: process.env[SESSION_KEY_ENV] ?? "", name: SESSION_KEY_ENV });
      } catch (err) {
        return cmd.error(`${(err as Error).message} (--session-key-file or $${SESSION_KEY_ENV})`);
      }
      const { serveConsole } = await import("../../controller/gitsync/console/serve.ts");
      const secret = flags.oidcClientSecret ?? process.env[OIDC_SECRET_ENV];
      await serveConsole({
        bind,
        sessionKey,
        logLevel: flags.logLevel,
        ...(flags.kubeconfig ? { kubeconfig: flags.kubeconfig } : {}),
        ...(flags.context ? { context: flags.context } : {}),
        ...(flags.oidcIssuer
          ? {
            oidc: {
              issuer: flags.oidcIssuer,
              clientId: flags.oidcClientId!,
              ...(secret ? { clientSecret: secret } : {}),
              redirectUrl: flags.oidcRedirectUrl!,
              usernameClaim: flags.oidcUsernameClaim,
              groupsClaim: flags.oidcGroupsClaim,
            },
          }
          : {}),
      });
    });
  addExamples(command, [
    `# Token sign-in, key from the environment\n${SESSION_KEY_ENV}=$(openssl rand -hex 32) gitsync-manager console`,
    "# OIDC sign-in\ngitsync-manager console --session-key-file /etc/console/session.key \\\n" +
    "  --oidc-issuer https://login.example.com --oidc-client-id gitsync \\\n" +
    "  --oidc-redirect-url https://gitsync.example.com/auth/oidc/callback",
  ]);
}
