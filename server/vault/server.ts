import { mkdir } from "node:fs/promises";
import { createRateLimiter } from "../../internal/auth/mod.ts";
import { freePort, type RunningServer, serve } from "../../internal/http/mod.ts";
import type { Logger } from "../../internal/log/mod.ts";
import { createVaultApp } from "./app.ts";
import { baseUrlOf, databaseOf, type VaultConfig } from "./config.ts";
import {
  oauthConfigOf,
  oauthEndpointsPlugin,
  oauthRegistrationHooks,
  socialProvidersOf,
} from "./identity/oauth.ts";
import { createVaultAuth } from "./identity/vault_auth.ts";
import { IndexSync } from "./indexing/index_sync.ts";
import { NoteStore, watchVault } from "./notes/mod.ts";
import { openVaultStore } from "./store/db.ts";

const MINUTE = 60_000;

/**
 * Starts the vault: opens the database (embedded or PostgreSQL) and migrates it, makes sure the
 * notes directory exists, then serves HTTP. Shutdown drains requests first and closes the store last.
 */
export async function startVault(
  given: VaultConfig,
  log: Logger,
  options: { handleSignals?: boolean } = {},
): Promise<RunningServer> {
  // The default public URL names the port, so port 0 is resolved before anything is built.
  const config = given.VAULT_PORT === 0 && !given.VAULT_BASE_URL
    ? { ...given, VAULT_PORT: await freePort(given.VAULT_HOST) }
    : given;
  await mkdir(config.VAULT_DATA_DIR, { recursive: true, mode: 0o700 });
  const where = databaseOf(config);
  const store = await openVaultStore({ ...where, log });
  log.info("database ready", {
    backend: store.database.backend,
    location: where.dataDir ?? "DATABASE_URL",
    migrationsApplied: store.applied,
  });
  let watcher: { close(): Promise<void> } | undefined;
  try {
    // Every change the store makes or the watcher sees on disk goes to the search index.
    // (onChange runs only on writes, after both exist.)
    const notes: NoteStore = new NoteStore({
      dataDir: config.VAULT_DATA_DIR,
      onChange: (c) => sync.handle(c),
    });
    const sync = new IndexSync(store.database.db, notes, log);
    const started = Date.now();
    await sync.reconcileAll();
    log.info("search index checked against the notes", { ms: Date.now() - started });
    const w = watchVault(notes, {
      onChange: (c) => sync.handle(c),
      onError: (err) => log.warn("notes watcher", { err }),
    });
    watcher = w;
    await w.ready;
    const oauth = oauthConfigOf(config);
    const auth = createVaultAuth({
      db: store.database.db,
      secret: config.BETTER_AUTH_SECRET,
      baseURL: baseUrlOf(config),
      trustedOrigins: config.VAULT_CORS_ORIGINS,
      socialProviders: socialProvidersOf(oauth),
      plugins: [oauthEndpointsPlugin(oauth)],
      userCreateHooks: oauthRegistrationHooks(store.database.db),
      log,
    });
    const app = createVaultApp({
      config,
      log,
      store,
      auth,
      notes: { store: notes, sync },
      limiters: {
        signIn: createRateLimiter({ limit: 10, windowMs: 15 * MINUTE }),
        password: createRateLimiter({ limit: 5, windowMs: 15 * MINUTE }),
        signUp: createRateLimiter({ limit: 10, windowMs: 15 * MINUTE }),
      },
    });
    return serve(app, {
      hostname: config.VAULT_HOST,
      port: config.VAULT_PORT,
      log,
      drainTimeoutMs: config.VAULT_SHUTDOWN_TIMEOUT_MS,
      onClose: async () => {
        await w.close();
        await store.database.close();
      },
      handleSignals: options.handleSignals,
    });
  } catch (err) {
    await watcher?.close();
    await store.database.close();
    throw err;
  }
}
