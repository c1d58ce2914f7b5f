import { type RunningServer, serve } from "../../internal/http/mod.ts";
import type { Logger } from "../../internal/log/mod.ts";
import { createMemsvcApp } from "./app.ts";
import type { MemsvcConfig } from "./config.ts";
import { openMemsvcStore } from "./store/db.ts";

/**
 * Starts memsvc: opens the store (embedded or PostgreSQL) and migrates it, then serves HTTP.
 * Shutdown drains requests first and closes the store last.
 */
export async function startMemsvc(
  config: MemsvcConfig,
  log: Logger,
  options: { handleSignals?: boolean } = {},
): Promise<RunningServer> {
  const store = await openMemsvcStore({
    url: config.MEMSVC_DATABASE_URL,
    dataDir: config.MEMSVC_DATA_DIR,
    log,
  });
  log.info("database ready", {
    backend: store.database.backend,
    location: config.MEMSVC_DATABASE_URL ?? config.MEMSVC_DATA_DIR,
    migrationsApplied: store.applied,
    instanceId: store.instanceId,
  });
  try {
    return serve(createMemsvcApp({ config, log }), {
      hostname: config.MEMSVC_HOST,
      port: config.MEMSVC_PORT,
      log,
      drainTimeoutMs: config.MEMSVC_SHUTDOWN_TIMEOUT_MS,
      onClose: () => store.database.close(),
      handleSignals: options.handleSignals,
    });
  } catch (err) {
    await store.database.close();
    throw err;
  }
}
