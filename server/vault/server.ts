import { mkdir } from "node:fs/promises";
import { TokenBuckets } from "../../internal/http/mod.ts";
import { type BuiltService, type OpenedStore, type ServiceDefinition } from "../../internal/service/start.ts";
import type { Logger } from "../../internal/log/mod.ts";
import { startGarbageGuard } from "../../internal/platform/mod.ts";
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
import { openVaultStore, type VaultStore } from "./store/db.ts";
import { markServing, removeLeftovers } from "./store/serving_marker.ts";
import { importsDir } from "./routes/transfer.ts";
import { SessionRegistry } from "../../internal/mcp/sessions.ts";
import { notifyNoteChange } from "./mcp/notify.ts";
import { LiveHub } from "./live/live_hub.ts";
import { ReplicaBus } from "./live/replica_bus.ts";
import { AccessWatch } from "./live/access_watch.ts";
import { SharedKeyBuckets } from "./keys/shared_key_buckets.ts";
import { vaultKeyStore } from "./keys/api_keys.ts";
import type { ApiKeyStore } from "../../internal/auth/mod.ts";
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
 * The vault as a service (internal/service/start.ts starts it): opens the database (embedded or
 * PostgreSQL) and migrates it, makes sure the notes directory exists, then serves HTTP. Shutdown
 * drains requests first and closes the store last.
 */
export const vaultService: ServiceDefinition<VaultConfig, VaultStore> = {
  listen: {
    host: "VAULT_HOST",
    port: "VAULT_PORT",
    baseUrl: "VAULT_BASE_URL",
    drainTimeoutMs: "VAULT_SHUTDOWN_TIMEOUT_MS",
  },
  open: openVault,
  build: buildVault,
};

/**
 * The database, and the notes folder marked as served (so `vault import --data-dir` refuses while
 * this server uses it); closing releases both.
 */
async function openVault(config: VaultConfig, log: Logger): Promise<OpenedStore<VaultStore>> {
  const where = databaseOf(config);
  await mkdir(config.VAULT_DATA_DIR, { recursive: true, mode: 0o700 });
  const store = await openVaultStore({ ...where, log });
  let serving: { release(): Promise<void> } | undefined;
  try {
    serving = await markServing(config.VAULT_DATA_DIR);
    // Uploads of imports cut short by a crash of this host's earlier processes.
    const leftovers = await removeLeftovers(importsDir(config.VAULT_DATA_DIR));
    if (leftovers) log.info("removed uploads left by an interrupted import", { files: leftovers });
  } catch (err) {
    await store.database.close();
    await serving?.release();
    throw err;
  }
  const marker = serving;
  return {
    store,
    ready: {
      backend: store.database.backend,
      location: where.dataDir ?? "DATABASE_URL",
      migrationsApplied: store.applied,
    },
    close: async () => {
      await store.database.close();
      await marker.release();
    },
  };
}

/** The vault's long-lived parts, each set once started: a failed start closes those that are. */
interface Parts {
  mcpSessions: SessionRegistry;
  watcher?: { close(): Promise<void> };
  live?: LiveHub;
  bus?: ReplicaBus;
  access?: AccessWatch;
  shared?: SharedKeyBuckets;
  collab?: CollabDocs;
  plugins?: PluginManager;
  /** Its last-use writes finish before the database closes. */
  keys?: ApiKeyStore;
  /** Stops the garbage guard. */
  stopGuard?: () => void;
}

/** Stops the parts that were started, in the order their users need them gone. */
async function closeParts(parts: Parts): Promise<void> {
  parts.stopGuard?.();
  await parts.mcpSessions.closeAll();
  await parts.plugins?.close();
  parts.live?.close();
  parts.access?.close();
  await parts.shared?.close();
  await parts.bus?.close();
  await parts.collab?.flushAll();
  await parts.watcher?.close();
  await parts.keys?.drain();
}

async function buildVault(config: VaultConfig, store: VaultStore, log: Logger): Promise<BuiltService> {
  const parts: Parts = {
    mcpSessions: new SessionRegistry({ maxSsePerUser: 10, idleMs: config.VAULT_MCP_IDLE_MS }, log),
  };
  try {
    const notes = notesWithIndex(config, store, log, parts);
    const { live, access, collab } = await startLive(config, store, notes, log, parts);
    // The store reports what the watcher finds (NoteStore.applyDiskChange) through its onChange:
    // passing it here too would tell every change on disk twice.
    const watcher = watchVault(notes.store, { onError: (err) => log.warn("notes watcher", { err }) });
    parts.watcher = watcher;
    await watcher.ready;
    const plugins = await startPlugins(config, store, notes, log, parts);
    const apiKeys = apiKeyBuckets(config, store, log, parts);
    const oauth = oauthConfigOf(config);
    const auth = vaultAuth(config, store, oauth, log);
    parts.keys = vaultKeyStore(store.database.db, log);
    const app = createVaultApp({
      config,
      log,
      store,
      auth,
      keys: parts.keys,
      notes,
      mcp: { registry: parts.mcpSessions },
      live,
      access,
      collab,
      plugins,
      web: { bundle: await loadVaultWebBundle(), oauthProviders: Object.keys(oauth) },
      limiters: {
        signIn: TokenBuckets.perPeriod(10, 15 * MINUTE),
        password: TokenBuckets.perPeriod(5, 15 * MINUTE),
        signUp: TokenBuckets.perPeriod(10, 15 * MINUTE),
        apiKeys,
      },
    });
    parts.mcpSessions.start();
    // RSS, not the collector's own count (which includes the embedded database's idle heap), decides
    // when garbage is collected (internal/platform/garbage.ts): searches and listings left 50–100 MB
    // of it between the collector's own collections (docs/benchmarks.md, issue 38).
    parts.stopGuard = startGarbageGuard({
      onCollect: (rss, ms) =>
        log.debug("garbage collected", { rssMb: Math.round(rss / 2 ** 20), ms: Math.round(ms) }),
    });
    return { app, close: () => closeParts(parts) };
  } catch (err) {
    await closeParts(parts);
    throw err;
  }
}

/**
 * The notes store, whose every change (made by it, or seen on disk by the watcher) goes to the search
 * index, the MCP sessions, live clients, collaborative documents and plugins; and the index's
 * catch-up with the notes, which runs while the server serves.
 */
function notesWithIndex(
  config: VaultConfig,
  store: VaultStore,
  log: Logger,
  parts: Parts,
): { store: NoteStore; sync: IndexSync } {
  // onChange runs only on writes, after `sync` and the parts exist.
  const notes: NoteStore = new NoteStore({
    dataDir: config.VAULT_DATA_DIR,
    onChange: (c) => {
      sync.handle(c);
      notifyNoteChange(parts.mcpSessions, c);
      parts.live?.handle(c);
      parts.collab?.handle(c);
      parts.plugins?.handle(c);
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
  return { store: notes, sync };
}

/** Live events (with the replicas' bus on PostgreSQL), the access watch and collaborative documents. */
async function startLive(
  config: VaultConfig,
  store: VaultStore,
  { store: notes, sync }: { store: NoteStore; sync: IndexSync },
  log: Logger,
  parts: Parts,
): Promise<{ live: LiveHub; access: AccessWatch; collab: CollabDocs }> {
  // Replicas share a PostgreSQL server; the embedded database is one process's alone.
  const { url } = databaseOf(config);
  const bus = url ? new ReplicaBus(url, log) : undefined;
  parts.bus = bus;
  const live = new LiveHub({
    db: store.database.db,
    store: notes,
    log,
    bus,
    settled: (owner) => sync.settled(owner),
    announceDelayMs: config.VAULT_TEST_ANNOUNCE_DELAY_MS,
    heartbeatMs: config.VAULT_WS_HEARTBEAT_MS,
    maxBufferedBytes: config.VAULT_WS_MAX_BUFFERED_BYTES,
  });
  parts.live = live;
  await live.start();
  const access = new AccessWatch({ log, bus, intervalMs: config.VAULT_WS_HEARTBEAT_MS });
  parts.access = access;
  await access.start();
  const collab = new CollabDocs({
    store: notes,
    updates: new UpdateLog(store.database.db),
    log,
    writeBackMs: config.VAULT_COLLAB_WRITE_BACK_MS,
    maxWriteBackMs: config.VAULT_COLLAB_MAX_WRITE_BACK_MS,
    evictMs: config.VAULT_COLLAB_EVICT_MS,
  });
  parts.collab = collab;
  return { live, access, collab };
}

async function startPlugins(
  config: VaultConfig,
  store: VaultStore,
  notes: { store: NoteStore; sync: IndexSync },
  log: Logger,
  parts: Parts,
): Promise<PluginManager> {
  const pluginsDir = pluginsDirOf(config);
  await mkdir(pluginsDir, { recursive: true, mode: 0o700 });
  const plugins = new PluginManager({
    db: store.database.db,
    dir: pluginsDir,
    notes: notesApiFor({ db: store.database.db, store: notes.store, sync: notes.sync }),
    log,
    timeoutMs: config.VAULT_PLUGIN_TIMEOUT_MS,
    memoryMb: config.VAULT_PLUGIN_MEMORY_MB,
    // Replicas share a PostgreSQL server; the embedded database is one process's alone.
    followMs: databaseOf(config).url ? 2_000 : undefined,
  });
  parts.plugins = plugins;
  await plugins.start();
  return plugins;
}

/** API keys' request budgets: shared by the replicas on one PostgreSQL; the embedded database has one process. */
function apiKeyBuckets(config: VaultConfig, store: VaultStore, log: Logger, parts: Parts) {
  const budget = {
    ratePerSecond: config.VAULT_API_KEY_RATE_PER_MINUTE / 60,
    burst: config.VAULT_API_KEY_BURST,
  };
  if (!databaseOf(config).url) return new TokenBuckets(budget);
  const shared = new SharedKeyBuckets({
    db: store.database.db,
    log,
    settleMs: KEY_BUDGET_SETTLE_MS,
    ...budget,
  });
  parts.shared = shared;
  shared.start();
  return shared;
}

function vaultAuth(
  config: VaultConfig,
  store: VaultStore,
  oauth: ReturnType<typeof oauthConfigOf>,
  log: Logger,
) {
  return createVaultAuth({
    db: store.database.db,
    secret: config.BETTER_AUTH_SECRET,
    baseURL: baseUrlOf(config),
    trustedOrigins: config.VAULT_CORS_ORIGINS,
    socialProviders: socialProvidersOf(oauth),
    plugins: [oauthEndpointsPlugin(oauth)],
    userCreateHooks: oauthRegistrationHooks(store.database.db),
    log,
  });
}
