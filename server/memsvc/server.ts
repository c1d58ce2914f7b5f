import { TokenBuckets } from "../../internal/http/mod.ts";
import { type BuiltService, type ServiceDefinition } from "../../internal/service/start.ts";
import { collectGarbage, startGarbageGuard } from "../../internal/platform/mod.ts";
import type { Logger } from "../../internal/log/mod.ts";
import { baseUrlOf, createMemsvcApp } from "./app.ts";
import { loadDashboardBundle } from "./dashboard/serve.ts";
import { bootstrapAdmin, type Caller } from "../../internal/auth/mod.ts";
import { createMemsvcAuth } from "./auth/memsvc_auth.ts";
import type { MemsvcConfig } from "./config.ts";
import { type MemsvcStore, openMemsvcStore } from "./store/db.ts";
import { createEmbedder, type Embedder, MiniLMEmbedder, StaticEmbedder } from "./embeddings/mod.ts";
import { createMaintenance, type Maintenance, reportTo } from "./maintenance/mod.ts";
import { SessionRegistry } from "../../internal/mcp/sessions.ts";
import { MemoryService } from "./memory/memory_service.ts";
import { projectLookup } from "./memory/project_lookup.ts";
import { HIT_FLUSH_EMBEDDED_MS, HIT_FLUSH_MAX_MS, HIT_FLUSH_MS, HitCounts } from "./memory/hit_counts.ts";
import { PAUSE_IDLE_MS, RequestPauses } from "./memory/request_pauses.ts";
import { SearchService } from "./memory/search.ts";
import { VectorBacklog } from "./memory/vector_backlog.ts";
import { EntryCopies } from "./memory/entry_copies.ts";
import { VectorCopies } from "./memory/vector_copies.ts";
import { VectorIndex } from "./memory/vector_index.ts";
import { IndexSnapshot, SNAPSHOT_FILE } from "./memory/index_snapshot.ts";
import { KeywordIndex, SNAPSHOT_MAX_AGE_MS } from "./memory/keyword_index.ts";
import { KEYWORD_SNAPSHOT_FILE } from "./memory/keyword_snapshot.ts";
import { join } from "node:path";
import { ActivityRecorder } from "./metrics/activity.ts";
import { MemsvcMetrics } from "./metrics/registry.ts";
import { TokenStore } from "./tokens/api_tokens.ts";
import { createTokenCache } from "./auth/token_cache.ts";
import { listenForCacheChanges } from "./store/cache_notices.ts";
import { NotifiedCache } from "./store/notified_cache.ts";

const MINUTE = 60_000;
/** The collection after the indexes are loaded waits this long at most for a pause between requests. */
const COLLECT_MAX_WAIT_MS = 10_000;
/**
 * Growth past which the garbage guard collects without waiting for a pause: under back-to-back
 * searches none comes.
 */
const GUARD_URGENT_BYTES = 64 * 2 ** 20;
/** The keyword index is saved once this long passed without a change (and at shutdown). */
const KEYWORD_SETTLE_MS = 30_000;

/** The implicit user of MEMSVC_AUTH_MODE=bearer and none; a real row so data can reference it. */
const OPERATOR: Omit<Caller, "via"> = { userId: "operator", email: "operator@localhost", role: "admin" };

/**
 * memsvc as a service (internal/service/start.ts starts it): opens the store (embedded or
 * PostgreSQL) and migrates it, sets up identity for the auth mode, then serves HTTP. Shutdown drains
 * requests first and closes the store last.
 */
export const memsvcService: ServiceDefinition<MemsvcConfig, MemsvcStore> = {
  listen: {
    host: "MEMSVC_HOST",
    port: "MEMSVC_PORT",
    baseUrl: "MEMSVC_BASE_URL",
    drainTimeoutMs: "MEMSVC_SHUTDOWN_TIMEOUT_MS",
  },
  open: async (config, log) => {
    const store = await openMemsvcStore({
      url: config.MEMSVC_DATABASE_URL,
      dataDir: config.MEMSVC_DATA_DIR,
      log,
    });
    return {
      store,
      ready: {
        backend: store.database.backend,
        location: config.MEMSVC_DATABASE_URL ?? config.MEMSVC_DATA_DIR,
        migrationsApplied: store.applied,
        instanceId: store.instanceId,
      },
      close: () => store.database.close(),
    };
  },
  build: buildMemsvc,
};

/** The parts, the app, and what runs once the server listens (the indexes' warm-up). */
async function buildMemsvc(config: MemsvcConfig, store: MemsvcStore, log: Logger): Promise<BuiltService> {
  // Migrating a new database left tens of MB of garbage; the admin's password hash (scrypt, 32 MB)
  // comes next, and a first start's peak is the two together.
  if (store.applied.length) collectGarbage();
  const parts = await createParts(config, store, log);
  const app = await buildApp(config, log, store, parts);
  parts.activity.start();
  parts.sessions.start();
  parts.maintenance.start();
  const warmUp = indexWarmUp(parts, log);
  return {
    app,
    beforeDrain: () => parts.sessions.closeAll(),
    listening: () => warmUp.start(),
    close: async () => {
      await warmUp.stop();
      await parts.keywordSnapshot.stop();
      await parts.vectors.stop();
      await parts.hits.stop();
      await parts.snapshot.stop();
      await parts.maintenance.stop();
      await parts.activity.stop();
      await parts.tokens.drain();
      await parts.stopCacheNotices?.();
    },
  };
}

/** The long-lived parts the app's routes use; buildMemsvc owns their lifecycle. */
interface Parts {
  requests: RequestPauses;
  /** `requests` on the embedded database, whose background statements wait for pauses between them. */
  pauses: RequestPauses | undefined;
  hits: HitCounts;
  tokens: TokenStore;
  activeProjects: NotifiedCache<string | null>;
  stopCacheNotices: (() => Promise<void>) | undefined;
  activity: ActivityRecorder;
  sessions: SessionRegistry;
  embedder: Embedder;
  index: VectorIndex;
  /** The vector index's snapshot, and whether it was loaded at start. */
  snapshot: IndexSnapshot;
  snapshotLoaded: boolean;
  keywords: KeywordIndex;
  keywordSnapshot: IndexSnapshot;
  vectors: VectorBacklog;
  copies: { entryCopies: EntryCopies; vectorCopies: VectorCopies };
  maintenance: Maintenance;
  metrics: MemsvcMetrics;
  /** Loads builtin-static's table off the request path once the store holds vectors. */
  preloadEmbedder(): void;
}

async function createParts(config: MemsvcConfig, store: MemsvcStore, log: Logger): Promise<Parts> {
  const db = store.database.db;
  // The request path's copies of token owners and active projects, kept current by change notices.
  const caches = { tokens: createTokenCache(), activeProjects: new NotifiedCache<string | null>() };
  const stopCacheNotices = await listenForCacheChanges(store.database, caches, log);
  const tokens = new TokenStore(db, { log, cache: caches.tokens });
  const activity = new ActivityRecorder(db, log);
  const metrics = new MemsvcMetrics();
  const sessions = new SessionRegistry({ maxSsePerUser: 10, idleMs: config.MEMSVC_MCP_SSE_IDLE_MS }, log);
  const embedder = createEmbedder(config, { dataDir: config.MEMSVC_DATA_DIR });
  // API requests in flight: garbage is collected in pauses between them (indexWarmUp), and on PGlite,
  // which runs statements on this thread, background statements wait for such pauses too.
  const requests = new RequestPauses();
  const pauses = store.database.backend === "pglite" ? requests : undefined;
  const index = new VectorIndex(db, embedder, pauses);
  // Copies of rows and vectors for search, filled by the write path too (embedded database only).
  const copies = { entryCopies: new EntryCopies(db), vectorCopies: new VectorCopies(db, embedder.id) };
  const vectors = new VectorBacklog({ db, embedder, index, log, pauses, copies: copies.vectorCopies });
  const snapshot = new IndexSnapshot(
    index,
    join(config.MEMSVC_DATA_DIR, SNAPSHOT_FILE),
    store.instanceId,
    log,
    { name: "vector index", unit: "vectors", pauses },
  );
  const snapshotLoaded = await snapshot.load();
  // builtin-static's table (mapped from the data directory, or gunzipped there first: about 150 ms of
  // CPU) is loaded while the server starts, so a restart's first search does not wait for it (190-260
  // ms of the first vector-mode search at 100,000 entries was this). Only for a store that holds
  // vectors: on a first start it would stack its buffers on initdb's, and an empty store's first write
  // loads it off the request path.
  const preloadEmbedder = () => {
    if (embedder instanceof StaticEmbedder && index.size > 0) embedder.load().catch(() => {});
  };
  preloadEmbedder();
  const keywords = new KeywordIndex(db);
  const keywordSnapshot = keywordSnapshotOf(config, store, keywords, log, pauses);
  const maintenance = createMaintenance(
    store.database,
    index,
    () => embedder.id,
    {
      decayDays: config.MEMSVC_DECAY_DAYS,
      decayIntervalMs: config.MEMSVC_DECAY_INTERVAL_MS,
      dreamBatch: config.MEMSVC_DREAM_BATCH,
    },
    log,
    reportTo(metrics),
    () => vectors.settled(),
  );
  return {
    requests,
    pauses,
    hits: hitCounts(config, store, log, metrics, pauses),
    tokens,
    activeProjects: caches.activeProjects,
    stopCacheNotices,
    activity,
    sessions,
    embedder,
    index,
    snapshot,
    snapshotLoaded,
    keywords,
    keywordSnapshot,
    vectors,
    copies,
    maintenance,
    metrics,
    preloadEmbedder,
  };
}

function keywordSnapshotOf(
  config: MemsvcConfig,
  store: MemsvcStore,
  keywords: KeywordIndex,
  log: Logger,
  pauses: RequestPauses | undefined,
): IndexSnapshot {
  return new IndexSnapshot(
    keywords,
    join(config.MEMSVC_DATA_DIR, KEYWORD_SNAPSHOT_FILE),
    store.instanceId,
    log,
    {
      name: "keyword index",
      unit: "entries",
      settleMs: KEYWORD_SETTLE_MS,
      // Re-stamped well within the age a snapshot is still loaded at, so a restart after a quiet
      // night loads it instead of rebuilding.
      refreshMs: SNAPSHOT_MAX_AGE_MS / 2,
      pauses,
    },
  );
}

function hitCounts(
  config: MemsvcConfig,
  store: MemsvcStore,
  log: Logger,
  metrics: MemsvcMetrics,
  pauses: RequestPauses | undefined,
): HitCounts {
  return new HitCounts(
    {
      db: store.database.db,
      decayDays: config.MEMSVC_DECAY_DAYS,
      log,
      metrics,
      pauses: pauses && { pauses, maxMs: HIT_FLUSH_MAX_MS },
    },
    store.database.backend === "pglite" ? HIT_FLUSH_EMBEDDED_MS : HIT_FLUSH_MS,
  );
}

/**
 * What runs once the server listens: both indexes are loaded (or built) while requests are served,
 * then the vector snapshot starts saving, the backlog recovers and the garbage left by loading is
 * collected; the garbage guard runs from then on. `stop` ends it and waits for what it started.
 */
function indexWarmUp(parts: Parts, log: Logger): { start(): void; stop(): Promise<void> } {
  const { index, keywords, requests, pauses, snapshot, snapshotLoaded: loaded } = parts;
  let warming = Promise.resolve();
  let warmingKeywords = Promise.resolve();
  let stopGuard = () => {};
  let stopping = false;
  // From the moment both indexes are loaded, RSS, not the collector's own count (which includes the
  // database's idle heap), decides when garbage is collected (internal/platform/garbage.ts). Not
  // after the catch-up below: its statements wait for pauses between requests, and under
  // back-to-back searches after a restart the guard did not run until they stopped.
  const startGuard = () =>
    startGarbageGuard({
      // On PostgreSQL too: under a stream of writes, collections due every 250 ms took their whole
      // 5 % share of the thread (about a tenth of a remember's CPU, docs/benchmarks.md MEMPGW2).
      ready: () => requests.idle(PAUSE_IDLE_MS),
      urgentBytes: GUARD_URGENT_BYTES,
      onCollect: (rss, ms) =>
        log.debug("garbage collected", { rssMb: Math.round(rss / 2 ** 20), ms: Math.round(ms) }),
    });
  return {
    start() {
      warmingKeywords = warmKeywords(keywords, parts.keywordSnapshot, log);
      const warmingVectors = warmIndex(index, log);
      // Without a vector snapshot both indexes are built from the database (tens of seconds at 100,000
      // entries, after an offline import): its garbage reached 1.3 GB when nothing collected it meanwhile.
      if (!loaded) stopGuard = startGuard();
      const guarding = Promise.all([warmingVectors, warmingKeywords]).then(() => {
        if (!stopping && loaded) stopGuard = startGuard();
      });
      warming = warmingVectors.then(async () => {
        parts.preloadEmbedder();
        snapshot.start();
        if (loaded) await snapshot.reconcile();
        await parts.vectors.recover();
        // Loading both indexes left tens of MB of garbage (parsed snapshot headers, read pages): gone
        // before the searches add theirs, in a pause between requests (a full collection stops the thread).
        await guarding;
        await pauses?.pause(PAUSE_IDLE_MS, COLLECT_MAX_WAIT_MS);
        if (stopping) return;
        collectGarbage();
      });
    },
    async stop() {
      stopping = true;
      stopGuard();
      index.stop();
      await warming;
      await warmingKeywords;
    },
  };
}

async function buildApp(config: MemsvcConfig, log: Logger, store: MemsvcStore, parts: Parts) {
  const { hits, tokens, activity, sessions, embedder, index, keywords, vectors, maintenance, metrics } =
    parts;
  const mode = config.MEMSVC_AUTH_MODE;
  const db = store.database.db;
  const projects = projectLookup(db, parts.activeProjects);
  const memoryDeps = {
    db,
    embedder,
    index,
    keywordIndex: keywords,
    hits,
    vectors,
    ...parts.copies,
    projects,
    activity,
    log,
    metrics,
    decayDays: config.MEMSVC_DECAY_DAYS,
    // PGlite is one session: batches queue behind each other anyway. PostgreSQL overlaps a few.
    writeConcurrency: store.database.backend === "postgres" ? 4 : 1,
  };
  const memory = new MemoryService(memoryDeps);
  const search = new SearchService(memoryDeps);
  log.info("embedder ready", { embedder: embedder.id });
  if (embedder instanceof MiniLMEmbedder) {
    // Seconds of loading, started now and not awaited: /health and writes (whose vectors the backlog
    // makes later) do not wait for it; the first search that needs it does.
    const started = performance.now();
    embedder.load().then(
      (runtime) =>
        log.info("builtin-minilm loaded", {
          runtime,
          ms: Math.round(performance.now() - started),
          ...(embedder.nativeError ? { native_error: embedder.nativeError.message } : {}),
        }),
      (err) => log.error("builtin-minilm failed to load", { err: (err as Error).message }),
    );
  }
  let auth;
  if (mode === "user") {
    auth = createMemsvcAuth({
      db: store.database.db,
      secret: config.MEMSVC_COOKIE_SECRET!,
      baseURL: baseUrlOf(config),
      trustedOrigins: config.MEMSVC_CORS_ORIGINS,
      log,
    });
    await bootstrapAdmin(auth, store.database, {
      email: config.MEMSVC_BOOTSTRAP_ADMIN_EMAIL,
      password: config.MEMSVC_BOOTSTRAP_ADMIN_PASSWORD,
      emailVariable: "MEMSVC_BOOTSTRAP_ADMIN_EMAIL",
      passwordVariable: "MEMSVC_BOOTSTRAP_ADMIN_PASSWORD",
      lock: "memsvc:bootstrap",
    }, log);
  } else {
    await ensureOperator(store);
    delete process.env.MEMSVC_BOOTSTRAP_ADMIN_PASSWORD;
    log.warn(
      mode === "none"
        ? "MEMSVC_AUTH_MODE=none: every request acts as the local operator, without authentication"
        : "MEMSVC_AUTH_MODE=bearer: every holder of MEMSVC_AUTH_TOKEN acts as the operator",
    );
  }
  return createMemsvcApp({
    config,
    log,
    store,
    auth,
    tokens,
    operator: OPERATOR,
    limiters: {
      signIn: TokenBuckets.perPeriod(10, 15 * MINUTE),
      password: TokenBuckets.perPeriod(5, 15 * MINUTE),
      rotate: TokenBuckets.perPeriod(10, 60 * MINUTE),
    },
    memory,
    search,
    activity,
    pauses: parts.requests,
    mcp: {
      registry: sessions,
      server: { memory, search, db, embedder, index, vectors, projects, log, metrics },
    },
    maintenance,
    metrics,
    dashboard: config.MEMSVC_ADMIN_DASHBOARD ? await loadDashboardBundle() : undefined,
  });
}

async function ensureOperator({ database: { db } }: MemsvcStore) {
  await db.insertInto("user")
    .values({
      id: OPERATOR.userId,
      name: "operator",
      email: OPERATOR.email,
      emailVerified: true,
      role: "admin",
    })
    .onConflict((oc) => oc.column("id").doNothing())
    .execute();
}

/**
 * Reads every stored vector into the index right after listening, so the first search does not
 * pay for it (about a second per 10k entries on the embedded database). Requests interleave with
 * its batches; a failure only means the first search reads the vectors instead.
 */
async function warmIndex(index: VectorIndex, log: Logger): Promise<void> {
  const started = performance.now();
  try {
    await index.sync();
    log.info("vector index loaded", { vectors: index.size, ms: Math.round(performance.now() - started) });
  } catch (err) {
    log.warn("vector index warm-up failed; the first search reads the vectors instead", { err });
  }
}

/**
 * Loads the keyword index's snapshot (or, without one, builds the index from the database) right
 * after listening, then catches up: a search meanwhile waits for this, and the first search after a
 * restart finds the index ready. Saving starts once it is.
 */
async function warmKeywords(keywords: KeywordIndex, snapshot: IndexSnapshot, log: Logger): Promise<void> {
  const started = performance.now();
  try {
    await snapshot.load();
    await keywords.sync();
    log.info("keyword index ready", { entries: keywords.size, ms: Math.round(performance.now() - started) });
  } catch (err) {
    log.warn("keyword index warm-up failed; the first search reads the entries instead", { err });
  }
  snapshot.start();
}
