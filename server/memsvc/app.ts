import { getCookies } from "better-auth/cookies";
import { Hono } from "hono";
import { type AppEnv, createApp, type TokenBuckets } from "../../internal/http/mod.ts";
import type { Logger } from "../../internal/log/mod.ts";
import { VERSION } from "../../internal/version/version.ts";
import {
  type Auth,
  authApi,
  authRoutes,
  type Caller,
  csrfGuard,
  resolveCaller,
} from "../../internal/auth/mod.ts";
import { MEMSVC_AUTH_ROUTES } from "./auth/allowlist.ts";
import type { MemsvcConfig } from "./config.ts";
import { type DashboardBundle, dashboardRoutes } from "./dashboard/serve.ts";
import type { MemsvcEnv } from "./env.ts";
import { memsvcDocument } from "./openapi/document.ts";
import type { RouteSpec } from "./openapi/route_spec.ts";
import { adminAuditLogApi, adminAuditLogRoutes } from "./routes/admin_audit_log.ts";
import { adminBackupApi, adminBackupRoutes } from "./routes/admin_backup.ts";
import { adminHealthApi, adminHealthRoutes } from "./routes/admin_health.ts";
import { adminMetricsApi, adminMetricsRoutes } from "./routes/admin_metrics.ts";
import { adminTokenApi, adminTokenRoutes } from "./routes/admin_tokens.ts";
import { apiDocsRoutes } from "./routes/api_docs.ts";
import { healthApi, healthRoutes } from "./routes/health.ts";
import { meTokenApi, meTokenRoutes } from "./routes/me_tokens.ts";
import { rotateTokenApi, rotateTokenRoutes } from "./routes/rotate_token.ts";
import type { MemoryService } from "./memory/memory_service.ts";
import type { SearchService } from "./memory/search.ts";
import type { RequestPauses } from "./memory/request_pauses.ts";
import type { ActivityRecorder } from "./metrics/activity.ts";
import { GaugeReader } from "./metrics/gauges.ts";
import type { MemsvcMetrics } from "./metrics/registry.ts";
import { routeTiming } from "../../internal/metrics/route_timing.ts";
import { activeProjectApi, activeProjectRoutes } from "./routes/active_project.ts";
import type { Maintenance } from "./maintenance/mod.ts";
import type { McpDeps } from "./mcp/mcp_server.ts";
import type { SessionRegistry } from "../../internal/mcp/sessions.ts";
import { mcpApi, mcpRoutes } from "./routes/mcp.ts";
import { maintenanceApi, maintenanceRoutes } from "./routes/maintenance.ts";
import { meActivityApi, meActivityRoutes } from "./routes/me_activity.ts";
import { memoryApi, memoryRoutes } from "./routes/memories.ts";
import { projectApi, projectRoutes } from "./routes/projects.ts";
import type { MemsvcStore } from "./store/db.ts";
import type { TokenStore } from "./tokens/api_tokens.ts";

export interface MemsvcAppDeps {
  config: MemsvcConfig;
  log: Logger;
  store: MemsvcStore;
  /** The identity library; present in MEMSVC_AUTH_MODE=user. */
  auth?: Auth;
  tokens: TokenStore;
  /** The implicit user of the bearer and none modes. */
  operator: Omit<Caller, "via">;
  limiters: { signIn: TokenBuckets; password: TokenBuckets; rotate: TokenBuckets };
  memory: MemoryService;
  search: SearchService;
  activity: ActivityRecorder;
  mcp: { registry: SessionRegistry; server: Omit<McpDeps, "toolNames"> };
  maintenance: Maintenance;
  metrics: MemsvcMetrics;
  /**
   * Counts API requests: garbage collection waits for pauses between them, and on the embedded database
   * background statements too.
   */
  pauses?: RequestPauses;
  /** The dashboard's bundle (see dashboard/serve.ts); undefined when it is not built. */
  dashboard?: DashboardBundle;
}

/** Session tokens sent as a bearer carry this prefix (API tokens carry nm_). */
const SESSION_BEARER_PREFIX = "ns_";

/** The public origin of the service: MEMSVC_BASE_URL, or the address it listens on. */
export function baseUrlOf(config: MemsvcConfig): string {
  if (config.MEMSVC_BASE_URL) return config.MEMSVC_BASE_URL.replace(/\/+$/, "");
  const host = ["0.0.0.0", "::", ""].includes(config.MEMSVC_HOST) ? "127.0.0.1" : config.MEMSVC_HOST;
  return `http://${host.includes(":") ? `[${host}]` : host}:${config.MEMSVC_PORT}`;
}

/** The memsvc HTTP surface: the shared app factory plus memsvc's routes. */
export function createMemsvcApp(deps: MemsvcAppDeps): Hono<AppEnv> {
  const { config, store, tokens } = deps;
  const app = createApp({
    log: deps.log,
    trustedProxies: config.MEMSVC_TRUSTED_PROXIES,
    corsOrigins: config.MEMSVC_CORS_ORIGINS,
    bodyLimitBytes: config.MEMSVC_MAX_BODY_BYTES,
  });
  app.route("/", healthRoutes);
  // What /openapi.json describes: the specs of the routes mounted here, each added where it is mounted.
  const described: RouteSpec[] = [...Object.values(healthApi)];
  const describe = (...apis: Record<string, RouteSpec>[]) =>
    apis.forEach((a) => described.push(...Object.values(a)));
  app.route(
    "/",
    dashboardRoutes({
      authMode: config.MEMSVC_AUTH_MODE,
      enabled: config.MEMSVC_ADMIN_DASHBOARD,
      bundle: deps.dashboard,
      origins: [baseUrlOf(config), ...config.MEMSVC_CORS_ORIGINS],
    }),
  );

  const api = new Hono<MemsvcEnv>();
  api.use(routeTiming(deps.metrics));
  if (deps.pauses) api.use(deps.pauses.middleware);
  const callers = resolveCaller({
    mode: config.MEMSVC_AUTH_MODE,
    auth: deps.auth,
    sessionCookie: "memsvc.session_token",
    apiTokens: {
      prefix: "nm_",
      resolve: async (token) => {
        const found = await tokens.resolve(token);
        return found &&
          { userId: found.userId, email: found.email, role: found.role, tokenHash: found.tokenHash };
      },
    },
    sessionBearerPrefix: SESSION_BEARER_PREFIX,
    sharedToken: config.MEMSVC_AUTH_TOKEN,
    operator: deps.operator,
  });
  api.use(
    "/v1/*",
    callers,
    csrfGuard({ trustedOrigins: [baseUrlOf(config), ...config.MEMSVC_CORS_ORIGINS] }),
  );
  api.use("/api/auth/*", callers);
  api.use("/mcp", callers);
  api.use("/mcp/*", callers);

  if (deps.auth) {
    api.route(
      "/",
      authRoutes({
        auth: deps.auth,
        database: store.database,
        allowlist: MEMSVC_AUTH_ROUTES,
        signInLimiter: deps.limiters.signIn,
        passwordLimiter: deps.limiters.password,
        lastAdminLock: "memsvc:admin-change",
        sessionBearerPrefix: SESSION_BEARER_PREFIX,
      }),
    );
    api.route("/", meTokenRoutes({ tokens, db: store.database.db }));
    api.route("/", rotateTokenRoutes({ tokens, db: store.database.db, rotateLimiter: deps.limiters.rotate }));
    describe(
      Object.fromEntries(
        authApi(deps.auth, {
          allowlist: MEMSVC_AUTH_ROUTES,
          tool: "memsvc",
          tokenHint: "send it as `Authorization: Bearer ns_<token>`",
        }).map((s) => [s.operationId, s]),
      ),
      meTokenApi,
      rotateTokenApi,
    );
  } else {
    const unavailable =
      `not available in MEMSVC_AUTH_MODE=${config.MEMSVC_AUTH_MODE}: it has no users to sign in`;
    api.all("/api/auth/*", (c) => c.json({ error: unavailable }, 404));
    api.all("/v1/me/tokens/*", (c) => c.json({ error: unavailable }, 404));
    api.all("/v1/me/tokens", (c) => c.json({ error: unavailable }, 404));
    api.all("/v1/auth/rotate-token", (c) => c.json({ error: unavailable }, 404));
  }
  api.route("/", adminTokenRoutes({ tokens, db: store.database.db }));
  api.route("/", adminAuditLogRoutes({ db: store.database.db }));
  api.route("/", adminBackupRoutes({ database: store.database }));
  api.route("/", memoryRoutes({ memory: deps.memory, search: deps.search }));
  api.route("/", projectRoutes({ db: store.database.db }));
  api.route("/", activeProjectRoutes({ db: store.database.db }));
  api.route("/", meActivityRoutes({ db: store.database.db, activity: deps.activity }));
  api.route("/", maintenanceRoutes(deps.maintenance));
  describe(
    adminTokenApi,
    adminAuditLogApi,
    adminBackupApi,
    memoryApi,
    projectApi,
    activeProjectApi,
    meActivityApi,
    maintenanceApi,
  );
  const { embedder, index } = deps.mcp.server;
  const gauges = new GaugeReader({
    db: store.database.db,
    embedderId: embedder.id,
    sessions: deps.mcp.registry,
    index,
  });
  api.route(
    "/",
    adminMetricsRoutes({
      metrics: deps.metrics,
      gauges,
      activity: deps.activity,
      dashboardEnabled: config.MEMSVC_ADMIN_DASHBOARD,
    }),
  );
  api.route(
    "/",
    adminHealthRoutes({
      database: store.database,
      embedder,
      metrics: deps.metrics,
      sessions: deps.mcp.registry,
      index,
      dataDir: store.database.backend === "pglite" ? config.MEMSVC_DATA_DIR : undefined,
    }),
  );
  describe(adminMetricsApi, adminHealthApi);
  api.route("/", mcpRoutes({ ...deps.mcp, keepAliveMs: config.MEMSVC_MCP_KEEPALIVE_MS }));
  describe(mcpApi);
  app.route("/", api);

  app.route(
    "/",
    apiDocsRoutes({
      document: () =>
        memsvcDocument(described, {
          version: VERSION,
          baseUrl: baseUrlOf(config),
          mode: config.MEMSVC_AUTH_MODE,
          sessionCookie: deps.auth ? getCookies(deps.auth.options).sessionToken.name : "",
        }),
    }),
  );
  return app;
}
