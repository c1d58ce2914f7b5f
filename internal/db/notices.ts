/**
 * Notices of changed rows, for in-process caches that must not outlive the rows they copy. A trigger
 * sends `pg_notify(channel, payload)`; every process that listens hears it: on a PostgreSQL server
 * each replica through its own listening connection, on PGlite this process alone. `announce` tells
 * this process's listeners at once, so a change made here is seen here before its NOTIFY arrives
 * (on PostgreSQL that is a round trip later).
 *
 * @example
 * const stop = await database.listen?.("app_cache", {
 *   notice: (payload) => cache.delete(payload),
 *   listening: () => cache.clear(), // notices sent while nobody listened are lost: start afresh
 * });
 */
import type { Kysely } from "kysely";

export interface NoticeHandlers {
  notice(payload: string): void;
  /**
   * Listening has started, or started again after the listening connection was lost: notices sent in
   * between were missed, so whatever they would have invalidated must be dropped now.
   */
  listening(): void;
}

/** Starts listening on a channel; resolves once listening, to a function that stops it. */
export type Listen = (channel: string, handlers: NoticeHandlers) => Promise<() => Promise<void>>;

/** In-process listeners by database handle and channel, for `announce`. */
const local = new WeakMap<object, Map<string, Set<NoticeHandlers>>>();

/** Registers handlers for `announce` on this database handle; returns the unregistration. */
export function listenLocally(db: object, channel: string, handlers: NoticeHandlers): () => void {
  let channels = local.get(db);
  if (!channels) local.set(db, channels = new Map());
  let set = channels.get(channel);
  if (!set) channels.set(channel, set = new Set());
  set.add(handlers);
  return () => set.delete(handlers);
}

/**
 * Delivers a notice to this process's listeners on the channel now. Call it after the change has
 * committed; the trigger's NOTIFY still reaches the other processes (and this one, again, later).
 */
export function announce<DB>(db: Kysely<DB>, channel: string, payload: string): void {
  for (const h of local.get(db)?.get(channel) ?? []) h.notice(payload);
}
