import { mkdir } from "node:fs/promises";
import { holdFreePort, type RunningServer, serve, TokenBuckets } from "../../internal/http/mod.ts";
import type { Logger } from "../../internal/log/mod.ts";
import { createVaultApp } from "./app.ts";
import { loadVaultWebBundle } from "./routes/web_app.ts";
import { baseUrlOf, databaseOf, pluginsDirOf, type VaultConfig } from "./config.ts";
import {
  oauthConfigOf,
  oauthEndpointsPlugin,
  oauthRegistrationHooks,
  socialProvidersOf,
} from "./identity/oauth.ts";
import { createVaultAuth } from "./identity/vault_auth.ts";
import { IndexSync } from "./indexing/index_sync.ts";
import { NoteStore, removeLeftoverTemps, watchVault } from "./notes/mod.ts";
import { openVaultStore } from "./store/db.ts";
import { markServing, removeLeftovers } from "./store/serving_marker.ts";
import { importsDir } from "./routes/transfer.ts";
import { SessionRegistry } from "../../internal/mcp/sessions.ts";
import { notifyNoteChange } from "./mcp/notify.ts";
import { LiveHub } from "./live/live_hub.ts";
import { ReplicaBus } from "./live/replica_bus.ts";
import { AccessWatch } from "./live/access_watch.ts";
import { SharedKeyBuckets } from "./keys/shared_key_buckets.ts";
import { CollabDocs } from "./collab/collab_docs.ts";
import { UpdateLog } from "./collab/update_log.ts";
import { notesApiFor } from "./mcp/note_tools.ts";
import { PluginManager } from "./plugins/plugin_manager.ts";

const MINUTE = 60_000;
/**
 * A temporary file this old is a write that never finished (a crash): removed at start, and once more
 * a minute later for those that were younger then. A younger one may be another replica's write in flight.
 */
const LEFTOVER_TEMP_AGE_MS = MINUTE;
/** How often replicas settle API key budgets with each other (keys/shared_key_buckets.ts). */
const KEY_BUDGET_SETTLE_MS = 1_000;

/**
 * Starts the vault: opens the database (embedded or PostgreSQL) and migrates it, makes sure the
 * notes directory exists, then serves HTTP. Shutdown drains requests first and closes the store last.
 */
export async function startVault(
  given: VaultConfig,
  log: Logger,
  options: { handleSignals?: boolean } = {},
): Promise<RunningServer> {
  // The default public URL names the port, so port 0 is resolved before anything is built, and
  // held until the server listens on it.
  const held = given.VAULT_PORT === 0 && !given.VAULT_BASE_URL
    ? await holdFreePort(given.VAULT_HOST)
    : undefined;
  const config = held ? { ...given, VAULT_PORT: held.port } : given;
  const where = databaseOf(config);
  const store = await mkdir(config.VAULT_DATA_DIR, { recursive: true, mode: 0o700 })
    .then(() => openVaultStore({ ...where, log }))
    .catch(async (err) => {
      await held?.release();
      throw err;
    });
  // So `vault import --data-dir` refuses while this server uses the notes folder.
  const serving = await markServing(config.VAULT_DATA_DIR).catch(async (err) => {
    await held?.release();
    await store.database.close();
    throw err;
  });
  // Uploads of imports cut short by a crash of this host's earlier processes.
  const leftovers = await removeLeftovers(importsDir(config.VAULT_DATA_DIR));
  if (leftovers) log.info("removed uploads left by an interrupted import", { files: leftovers });
  log.info("database ready", {
    backend: store.database.backend,
    location: where.dataDir ?? "DATABASE_URL",
    migrationsApplied: store.applied,
  });
  let watcher: { close(): Promise<void> } | undefined;
  let live: LiveHub | undefined;
  let bus: ReplicaBus | undefined;
  let access: AccessWatch | undefined;
  let shared: SharedKeyBuckets | undefined;
  let collab: CollabDocs | undefined;
  let plugins: PluginManager | undefined;
  const mcpSessions = new SessionRegistry({ maxSsePerUser: 10, idleMs: config.VAULT_MCP_IDLE_MS }, log);
  try {
    // Every change the store makes or the watcher sees on disk goes to the search index.
    // (onChange runs only on writes, after both exist.)
    const notes: NoteStore = new NoteStore({
      dataDir: config.VAULT_DATA_DIR,
      onChange: (c) => {
        sync.handle(c);
        notifyNoteChange(mcpSessions, c);
        live?.handle(c);
        collab?.handle(c);
        plugins?.handle(c);
      },
    });
    const sync = new IndexSync(store.database.db, notes, log);
    const sweep = () =>
      removeLeftoverTemps(notes.usersDir, Date.now() - LEFTOVER_TEMP_AGE_MS).then((removed) => {
        if (removed.length) {
          log.info("temporary files of interrupted writes removed", { count: removed.length });
        }
      }, (err) => log.warn("temporary files not cleaned up", { err }));
    void sweep();
    const sweepAgain = setTimeout(sweep, LEFTOVER_TEMP_AGE_MS + 1_000);
    (sweepAgain as { unref?: () => void }).unref?.();
    // The catch-up runs while the server serves: searches, backlinks and the graph wait for their user's
    // (IndexSync.settled), everything else answers at once instead of after a whole vault's indexing.
    const started = Date.now();
    void sync.reconcileAll().then(() =>
      log.info("search index checked against the notes", { ms: Date.now() - started })
    );
    // Replicas share a PostgreSQL server; the embedded database is one process's alone.
    bus = where.url ? new ReplicaBus(where.url, log) : undefined;
    live = new LiveHub({
      db: store.database.db,
      store: notes,
      log,
      bus,
      announceDelayMs: config.VAULT_TEST_ANNOUNCE_DELAY_MS,
      heartbeatMs: config.VAULT_WS_HEARTBEAT_MS,
      maxBufferedBytes: config.VAULT_WS_MAX_BUFFERED_BYTES,
    });
    await live.start();
    access = new AccessWatch({ log, bus, intervalMs: config.VAULT_WS_HEARTBEAT_MS });
    await access.start();
    const accessWatch = access;
    collab = new CollabDocs({
      store: notes,
      updates: new UpdateLog(store.database.db),
      log,
      writeBackMs: config.VAULT_COLLAB_WRITE_BACK_MS,
      maxWriteBackMs: config.VAULT_COLLAB_MAX_WRITE_BACK_MS,
      evictMs: config.VAULT_COLLAB_EVICT_MS,
    });
    const hub = live;
    // The store reports what the watcher finds (NoteStore.applyDiskChange) through its onChange above:
    // passing it here too would tell every change on disk twice.
    const w = watchVault(notes, { onError: (err) => log.warn("notes watcher", { err }) });
    watcher = w;
    await w.ready;
    const pluginsDir = pluginsDirOf(config);
    await mkdir(pluginsDir, { recursive: true, mode: 0o700 });
    plugins = new PluginManager({
      db: store.database.db,
      dir: pluginsDir,
      notes: notesApiFor({ db: store.database.db, store: notes, sync }),
      log,
      timeoutMs: config.VAULT_PLUGIN_TIMEOUT_MS,
      memoryMb: config.VAULT_PLUGIN_MEMORY_MB,
      // Replicas share a PostgreSQL server; the embedded database is one process's alone.
      followMs: where.url ? 2_000 : undefined,
    });
    await plugins.start();
    const pluginManager = plugins;
    // Replicas on one PostgreSQL share each key's budget; the embedded database has one process.
    const budget = {
      ratePerSecond: config.VAULT_API_KEY_RATE_PER_MINUTE / 60,
      burst: config.VAULT_API_KEY_BURST,
    };
    const keyBuckets = where.url
      ? new SharedKeyBuckets({ db: store.database.db, log, settleMs: KEY_BUDGET_SETTLE_MS, ...budget })
      : new TokenBuckets(budget);
    shared = keyBuckets instanceof SharedKeyBuckets ? keyBuckets : undefined;
    shared?.start();
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
      mcp: { registry: mcpSessions },
      live: hub,
      access: accessWatch,
      collab,
      plugins: pluginManager,
      web: { bundle: await loadVaultWebBundle(), oauthProviders: Object.keys(oauth) },
      limiters: {
        signIn: TokenBuckets.perPeriod(10, 15 * MINUTE),
        password: TokenBuckets.perPeriod(5, 15 * MINUTE),
        signUp: TokenBuckets.perPeriod(10, 15 * MINUTE),
        apiKeys: keyBuckets,
      },
    });
    mcpSessions.start();
    await held?.release();
    return serve(app, {
      hostname: config.VAULT_HOST,
      port: config.VAULT_PORT,
      log,
      drainTimeoutMs: config.VAULT_SHUTDOWN_TIMEOUT_MS,
      onClose: async () => {
        await mcpSessions.closeAll();
        await pluginManager.close();
        hub.close();
        accessWatch.close();
        await shared?.close();
        await bus?.close();
        await collab?.flushAll();
        await w.close();
        await store.database.close();
        await serving.release();
      },
      handleSignals: options.handleSignals,
    });
  } catch (err) {
    await held?.release();
    await mcpSessions.closeAll();
    await plugins?.close();
    live?.close();
    access?.close();
    await shared?.close();
    await bus?.close();
    await watcher?.close();
    await store.database.close();
    await serving.release();
    throw err;
  }
}
