import type { Hono } from "hono";
import { type AppEnv, createApp } from "../../internal/http/mod.ts";
import type { Logger } from "../../internal/log/mod.ts";
import type { MemsvcConfig } from "./config.ts";
import { healthRoutes } from "./routes/health.ts";

export interface MemsvcAppDeps {
  config: MemsvcConfig;
  log: Logger;
}

/** The memsvc HTTP surface: the shared app factory plus memsvc's routes. */
export function createMemsvcApp({ config, log }: MemsvcAppDeps): Hono<AppEnv> {
  const app = createApp({
    log,
    trustedProxies: config.MEMSVC_TRUSTED_PROXIES,
    corsOrigins: config.MEMSVC_CORS_ORIGINS,
    bodyLimitBytes: config.MEMSVC_MAX_BODY_BYTES,
  });
  app.route("/", healthRoutes);
  return app;
}
