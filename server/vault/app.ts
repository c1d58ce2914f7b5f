/**
 * The vault's HTTP surface: the shared app (request ids, hardening headers, access log, body limit,
 * one central error handler that never sends paths or stack traces), the vault's CSP, caller
 * resolution and CSRF for /api, the routes, and the OpenAPI document with Swagger UI.
 */
import { getCookies } from "better-auth/cookies";
import { Hono, type MiddlewareHandler } from "hono";
import {
  type ApiKeyStore,
  type Auth,
  authApi,
  authRoutes,
  csrfGuard,
  refuseReadOnlyWrites,
  resolveCaller,
} from "../../internal/auth/mod.ts";
import { type AppEnv, createApp, type RateLimitBuckets, type TokenBuckets } from "../../internal/http/mod.ts";
import type { Logger } from "../../internal/log/mod.ts";
import { apiDocsRoutes } from "../../internal/openapi/mod.ts";
import { VERSION } from "../../internal/version/version.ts";
import { baseUrlOf, type VaultConfig } from "./config.ts";
import type { VaultEnv } from "./env.ts";
import { SESSION_COOKIE, VAULT_AUTH_ROUTES } from "./identity/vault_auth.ts";
import { KEY_PREFIX, resolveKey } from "./keys/api_keys.ts";
import { keyBudget } from "./keys/key_budget.ts";
import { vaultDocument } from "./openapi/document.ts";
import type { RouteSpec } from "./openapi/route_spec.ts";
import { adminApi, adminRoutes } from "./routes/admin.ts";
import { apiKeyApi, apiKeyRoutes } from "./routes/api_keys.ts";
import { healthApi, healthRoutes } from "./routes/health.ts";
import type { PluginManager } from "./plugins/plugin_manager.ts";
import { pluginRouteDocs, pluginRoutes, pluginsApi } from "./routes/plugins.ts";
import type { IndexSync } from "./indexing/index_sync.ts";
import type { NoteStore } from "./notes/mod.ts";
import { CLIENT_ID_HEADER, clientIdOf, runAs } from "./live/actor.ts";
import type { LiveHub } from "./live/live_hub.ts";
import type { AccessWatch } from "./live/access_watch.ts";
import { liveApi, liveRoutes } from "./routes/live.ts";
import { collabApi, collabRoutes } from "./routes/collab.ts";
import type { CollabDocs } from "./collab/collab_docs.ts";
import { mcpApi, mcpRoutes } from "./routes/mcp.ts";
import { notesApi, notesRoutes } from "./routes/notes.ts";
import { preferencesApi, preferencesRoutes } from "./routes/preferences.ts";
import { shareRoutes, sharesApi } from "./routes/shares.ts";
import { transferApi, transferRoutes } from "./routes/transfer.ts";
import { sessionApi, sessionRoutes } from "./routes/sessions.ts";
import { signUpApi, signUpRoutes } from "./routes/sign_up.ts";
import { webAppRoutes } from "./routes/web_app.ts";
import type { AppBundle } from "../../internal/web/mod.ts";
import type { VaultStore } from "./store/db.ts";
import type { SessionRegistry } from "../../internal/mcp/sessions.ts";

/** The CSP of the reference vault (notes/vault.md section 2): no inline or foreign scripts. */
export const VAULT_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "connect-src 'self' ws: wss:",
  "frame-ancestors 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
].join("; ");

/** The CSP on every answer that has none of its own (the API docs page sets a stricter one). */
const vaultCsp: MiddlewareHandler<AppEnv> = async (c, next) => {
  await next();
  if (!c.res.headers.has("Content-Security-Policy")) c.res.headers.set("Content-Security-Policy", VAULT_CSP);
};

export interface VaultAppDeps {
  config: VaultConfig;
  log: Logger;
  store: VaultStore;
  auth: Auth;
  /** The API keys (keys/api_keys.ts): resolved on every request that carries one. */
  keys: ApiKeyStore;
  limiters: {
    signIn: TokenBuckets;
    password: TokenBuckets;
    signUp: TokenBuckets;
    /** Every API key's request budget (keys/key_budget.ts). */
    apiKeys: RateLimitBuckets;
  };
  /** The note files and the search index kept in step with them. */
  notes: { store: NoteStore; sync: IndexSync };
  /** The live MCP sessions of this process. */
  mcp: { registry: SessionRegistry };
  /** The live event channel's sockets. */
  live: LiveHub;
  /** Re-checks open sockets when access ends (here and on the other replicas). */
  access: AccessWatch;
  /** The notes open for collaborative editing. */
  collab: CollabDocs;
  /** The installed plugins and their sandboxes. */
  plugins: PluginManager;
  /** The web app served at / (web/vault); without a bundle the page answers 503 with the build hint. */
  web?: { bundle: AppBundle | undefined; oauthProviders: readonly string[] };
}

export function createVaultApp(deps: VaultAppDeps): Hono<AppEnv> {
  const { config, store, auth } = deps;
  const { database } = store;
  const baseUrl = baseUrlOf(config);
  const app = createApp({
    log: deps.log,
    trustedProxies: config.VAULT_TRUSTED_PROXIES,
    corsOrigins: config.VAULT_CORS_ORIGINS,
    bodyLimitBytes: config.VAULT_MAX_BODY_BYTES,
    largeBodies: { "/api/import": config.VAULT_IMPORT_MAX_BYTES },
  });
  app.use(vaultCsp);
  app.route("/", healthRoutes());

  const api = new Hono<VaultEnv>();
  const readOnly = refuseReadOnlyWrites();
  const budget = keyBudget({
    buckets: deps.limiters.apiKeys,
    ratePerMinute: config.VAULT_API_KEY_RATE_PER_MINUTE,
    burst: config.VAULT_API_KEY_BURST,
  });
  const caller = resolveCaller({
    mode: "user",
    auth,
    sessionCookie: SESSION_COOKIE,
    apiTokens: { prefix: KEY_PREFIX, resolve: (key) => resolveKey(deps.keys, key) },
  });
  api.use(
    "/api/*",
    caller,
    budget,
    csrfGuard({ trustedOrigins: [baseUrl, ...config.VAULT_CORS_ORIGINS], requireHeader: "X-Requested-With" }),
    // /api/mcp POSTs every message, reads too: its tools decide (a read-only key gets the reading ones).
    (c, next) => (c.req.path === "/api/mcp" ? next() : readOnly(c, next)),
    // The web app's tab id, named in the live events its writes cause (so it can drop its echoes).
    (c, next) => runAs({ clientId: clientIdOf(c.req.header(CLIENT_ID_HEADER)) }, next),
  );
  api.use("/ws/*", caller, budget);
  // Before the library's passthrough: sign-up is the vault's own (invite claim in one transaction).
  api.route("/", signUpRoutes({ auth, database, limiter: deps.limiters.signUp }));
  const access = deps.access;
  api.route("/", sessionRoutes({ db: database.db, access }));
  api.route(
    "/",
    authRoutes({
      auth,
      database,
      allowlist: VAULT_AUTH_ROUTES,
      signInLimiter: deps.limiters.signIn,
      passwordLimiter: deps.limiters.password,
      lastAdminLock: "vault:admin-change",
      onSessionsEnded: (userId) => access.ended([userId]),
    }),
  );
  api.route("/", apiKeyRoutes({ db: database.db, keys: deps.keys, access }));
  api.route("/", preferencesRoutes({ db: database.db }));
  api.route("/", adminRoutes({ database, access }));
  const notesDeps = { db: database.db, store: deps.notes.store, sync: deps.notes.sync };
  api.route("/", notesRoutes(notesDeps));
  api.route("/", shareRoutes({ db: database.db, store: deps.notes.store, access }));
  api.route(
    "/",
    transferRoutes({ ...deps.notes, maxBytes: config.VAULT_IMPORT_MAX_BYTES, log: deps.log }),
  );
  api.route("/", mcpRoutes({ ...notesDeps, registry: deps.mcp.registry, plugins: deps.plugins }));
  api.route("/", pluginRoutes({ plugins: deps.plugins, db: database.db }));
  api.route(
    "/",
    liveRoutes({ hub: deps.live, origins: [baseUrl, ...config.VAULT_CORS_ORIGINS], db: database.db, access }),
  );
  api.route(
    "/",
    collabRoutes({
      docs: deps.collab,
      db: database.db,
      store: deps.notes.store,
      origins: [baseUrl, ...config.VAULT_CORS_ORIGINS],
      access,
    }),
  );
  app.route("/", api);
  app.route(
    "/",
    webAppRoutes({
      bundle: deps.web?.bundle,
      csp: VAULT_CSP,
      oauthProviders: deps.web?.oauthProviders ?? [],
    }),
  );

  const described: RouteSpec[] = [
    ...Object.values(healthApi),
    ...Object.values(signUpApi),
    ...Object.values(sessionApi),
    ...authApi(auth, {
      allowlist: VAULT_AUTH_ROUTES,
      tool: "vault",
      tokenHint: "the session cookie carries it",
    }),
    ...Object.values(apiKeyApi),
    ...Object.values(preferencesApi),
    ...Object.values(adminApi),
    ...Object.values(notesApi),
    ...Object.values(sharesApi),
    ...Object.values(transferApi),
    ...Object.values(mcpApi),
    ...Object.values(liveApi),
    ...Object.values(collabApi),
    ...Object.values(pluginsApi),
    ...pluginRouteDocs,
  ];
  app.route(
    "/",
    apiDocsRoutes({
      docsPath: "/api/docs",
      documentPath: "/api/docs.json",
      title: "vault API",
      document: () =>
        vaultDocument(described, {
          version: VERSION,
          baseUrl,
          sessionCookie: getCookies(auth.options).sessionToken.name,
        }),
    }),
  );
  return app;
}
