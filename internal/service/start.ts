/**
 * The start-up every HTTP service of the toolkit shares (memsvc, vault): configuration → database
 * (opened and migrated under a lock by the service's `open`) → the service's long-lived parts and its
 * app → listen → graceful shutdown. A service describes only what is its own; the order, the port-0
 * hold, the "database ready" line and the cleanup of a failed start are here once.
 *
 * Shutdown (a signal, or RunningServer.stop) stops accepting, runs `beforeDrain`, drains in-flight
 * requests, then closes the service's parts and only then the database, so no request loses its
 * database mid-flight (internal/http/serve.ts).
 *
 * @example
 * const server = await startService(config, log, {
 *   listen: { host: "HOST", port: "PORT", baseUrl: "BASE_URL", drainTimeoutMs: "SHUTDOWN_TIMEOUT_MS" },
 *   open: async (c, log) => {
 *     const store = await openMyStore({ url: c.DATABASE_URL, log });
 *     return { store, ready: { backend: store.database.backend, ... }, close: () => store.database.close() };
 *   },
 *   build: async (c, store, log) => ({ app: createMyApp(c, store, log), close: async () => {} }),
 * });
 */
import type { Hono } from "hono";
import { type AppEnv, holdFreePort, type RunningServer, serve } from "../http/mod.ts";
import type { Logger } from "../log/mod.ts";

/** The keys of `C` whose values are `V`. */
type KeysOf<C, V> = { [K in keyof C]-?: C[K] extends V ? K : never }[keyof C];

/** Where and how a service listens: the names of the configuration's variables that say it. */
export interface ListenKeys<C> {
  host: KeysOf<C, string>;
  /** 0 picks a free port. */
  port: KeysOf<C, number>;
  /**
   * The public URL. Unset, the default URL names the port, so port 0 is resolved (and held) before
   * anything is built.
   */
  baseUrl: KeysOf<C, string | undefined>;
  /** How long shutdown waits for in-flight requests. */
  drainTimeoutMs: KeysOf<C, number>;
}

/** What a service's `open` hands over: its store, and how to close it. */
export interface OpenedStore<S> {
  store: S;
  /** The fields of the "database ready" log line (backend, location, migrationsApplied, ...). */
  ready: Record<string, unknown>;
  /** Closes the database and whatever else `open` took; runs last at shutdown. */
  close(): Promise<void>;
}

/** A service's parts around its app, as `build` returns them. */
export interface BuiltService {
  app: Hono<AppEnv>;
  /** Ends long-lived responses (event streams) that would otherwise hold the drain open. */
  beforeDrain?(): Promise<void>;
  /** Stops the service's parts after draining; the store closes after it. */
  close(): Promise<void>;
  /** Runs once the server listens: warm-ups that requests may overtake. */
  listening?(): void;
}

export interface ServiceDefinition<C, S> {
  listen: ListenKeys<C>;
  /** Opens the database and applies pending migrations (under a lock, for replicas starting together). */
  open(config: C, log: Logger): Promise<OpenedStore<S>>;
  /**
   * Builds the long-lived parts and the app. On a failure it closes what it started itself; the
   * store is closed by startService.
   */
  build(config: C, store: S, log: Logger): Promise<BuiltService>;
}

export interface StartOptions {
  /** Stop gracefully on SIGTERM and SIGINT, then exit. Default true. */
  handleSignals?: boolean;
}

/** Starts a service as its definition says and serves it until stopped. */
export async function startService<C, S>(
  given: C,
  log: Logger,
  service: ServiceDefinition<C, S>,
  options: StartOptions = {},
): Promise<RunningServer> {
  const keys = service.listen;
  const host = given[keys.host] as string;
  const held = given[keys.port] === 0 && !given[keys.baseUrl] ? await holdFreePort(host) : undefined;
  const config = held ? { ...given, [keys.port]: held.port } : given;
  let opened: OpenedStore<S>;
  try {
    opened = await service.open(config, log);
  } catch (err) {
    await held?.release();
    throw err;
  }
  log.info("database ready", opened.ready);
  let built: BuiltService;
  try {
    built = await service.build(config, opened.store, log);
  } catch (err) {
    await held?.release();
    await opened.close();
    throw err;
  }
  await held?.release();
  let server: RunningServer;
  try {
    server = serve(built.app, {
      hostname: host,
      port: config[keys.port] as number,
      log,
      drainTimeoutMs: config[keys.drainTimeoutMs] as number,
      beforeDrain: built.beforeDrain,
      onClose: async () => {
        await built.close();
        await opened.close();
      },
      handleSignals: options.handleSignals,
    });
  } catch (err) {
    await built.close();
    await opened.close();
    throw err;
  }
  built.listening?.();
  return server;
}
