/**
 * memsvc's environment, read once at start. Every variable is documented in docs/memsvc.md;
 * flags of `memsvc serve` override the variables of the same meaning.
 */
import { z } from "zod";
import { csv, defaultDataDir, loadEnv, port, positiveInt } from "../../internal/config/mod.ts";
import { LOG_LEVELS } from "../../internal/log/mod.ts";

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
});

export type MemsvcConfig = z.output<typeof memsvcEnv>;

export function loadMemsvcConfig(env: Record<string, string | undefined> = process.env): MemsvcConfig {
  return loadEnv(memsvcEnv, env);
}
