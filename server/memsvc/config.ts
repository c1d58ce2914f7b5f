/**
 * memsvc's environment, read once at start. Every variable is documented in docs/memsvc.md;
 * flags of `memsvc serve` override the variables of the same meaning.
 */
import { z } from "zod";
import {
  ConfigError,
  csv,
  defaultDataDir,
  flag,
  loadEnv,
  port,
  positiveInt,
} from "../../internal/config/mod.ts";
import { LOG_LEVELS } from "../../internal/log/mod.ts";
import { embeddingsEnv, embeddingsProblems } from "./embeddings/config.ts";

export const memsvcEnv = z.object({
  /** Interface to listen on. Loopback by default: exposing the service is a deliberate choice. */
  MEMSVC_HOST: z.string().min(1).default("127.0.0.1"),
  MEMSVC_PORT: port(7778),
  /** Embedded database directory, used when MEMSVC_DATABASE_URL is not set. */
  MEMSVC_DATA_DIR: z.string().min(1).default(defaultDataDir("memsvc")),
  /** postgres://user:pass@host:5432/db selects a PostgreSQL server instead of the embedded database. */
  MEMSVC_DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, "must be a postgres:// or postgresql:// URL")
    .optional(),
  MEMSVC_LOG_LEVEL: z.enum(LOG_LEVELS).default("info"),
  /** json or pretty; default pretty on a terminal, json otherwise. */
  MEMSVC_LOG_FORMAT: z.enum(["json", "pretty"]).optional(),
  /** Proxies (IPs or CIDRs) whose X-Request-Id and X-Forwarded-For headers are believed. */
  MEMSVC_TRUSTED_PROXIES: csv(),
  /** Origins allowed to call the API from a browser; default same-origin only. */
  MEMSVC_CORS_ORIGINS: csv(),
  MEMSVC_MAX_BODY_BYTES: positiveInt(1024 * 1024),
  /** How long shutdown waits for in-flight requests. */
  MEMSVC_SHUTDOWN_TIMEOUT_MS: positiveInt(10_000),
  /** user (sessions + API tokens), bearer (one shared token) or none (development, loopback only). */
  MEMSVC_AUTH_MODE: z.enum(["user", "bearer", "none"]).default("user"),
  /** Signs session cookies; required unless MEMSVC_AUTH_MODE=none. */
  MEMSVC_COOKIE_SECRET: z.string().min(32, "must be at least 32 characters (try: openssl rand -hex 32)")
    .optional(),
  /** The shared bearer of MEMSVC_AUTH_MODE=bearer. */
  MEMSVC_AUTH_TOKEN: z.string().min(32, "must be at least 32 characters (try: openssl rand -hex 32)")
    .optional(),
  /** The public origin users reach the service at; the trusted origin for CSRF checks. */
  MEMSVC_BASE_URL: z.url({ protocol: /^https?$/, message: "must be an http:// or https:// URL" }).optional(),
  /** Creates the first admin when none exists; the password is then removed from the environment. */
  MEMSVC_BOOTSTRAP_ADMIN_EMAIL: z.email({ message: "must be an email address" }).optional(),
  MEMSVC_BOOTSTRAP_ADMIN_PASSWORD: z.string().min(10, "must be at least 10 characters").optional(),
  ...embeddingsEnv.shape,
  /** An SSE session with no POST for this long is closed (contract: 30 minutes; shorter for tests). */
  MEMSVC_MCP_SSE_IDLE_MS: positiveInt(30 * 60_000),
  /** Lifespan unit of decay in days: lifespan = days × (1 + log2(hits + 1)). */
  MEMSVC_DECAY_DAYS: positiveInt(7),
  /** How often decay runs. */
  MEMSVC_DECAY_INTERVAL_MS: positiveInt(6 * 60 * 60_000),
  /** Entries the dream cycle examines per run; the next run continues where it stopped. */
  MEMSVC_DREAM_BATCH: positiveInt(5_000),
  /** Interval of keep-alive comments on idle MCP event streams. */
  MEMSVC_MCP_KEEPALIVE_MS: positiveInt(25_000),
  /** 0 turns off the dashboard (/admin) and its metrics (GET /v1/admin/metrics); Prometheus scraping stays on. */
  MEMSVC_ADMIN_DASHBOARD: flag(true),
});

export type MemsvcConfig = z.output<typeof memsvcEnv>;

export function loadMemsvcConfig(env: Record<string, string | undefined> = process.env): MemsvcConfig {
  const config = loadEnv(memsvcEnv, env);
  const problems = [...authProblems(config), ...embeddingsProblems(config)];
  if (problems.length) throw new ConfigError(problems);
  return config;
}

/** Rules that tie variables together; each message names the variable to change. */
function authProblems(config: MemsvcConfig): string[] {
  const mode = config.MEMSVC_AUTH_MODE;
  const problems: string[] = [];
  if (mode !== "none" && !config.MEMSVC_COOKIE_SECRET) {
    problems.push(
      `MEMSVC_COOKIE_SECRET is required when MEMSVC_AUTH_MODE is ${mode} (generate one: openssl rand -hex 32)`,
    );
  }
  if (mode === "bearer" && !config.MEMSVC_AUTH_TOKEN) {
    problems.push(
      "MEMSVC_AUTH_TOKEN is required when MEMSVC_AUTH_MODE is bearer (generate one: openssl rand -hex 32)",
    );
  }
  if (mode === "none" && !isLoopback(config.MEMSVC_HOST)) {
    problems.push(
      `MEMSVC_HOST=${config.MEMSVC_HOST} is not a loopback address: MEMSVC_AUTH_MODE=none serves every request ` +
        "without authentication and only binds to 127.0.0.1, ::1 or localhost",
    );
  }
  return problems;
}

export function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || host === "[::1]" ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}
