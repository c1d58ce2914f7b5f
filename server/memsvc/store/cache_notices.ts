/**
 * Wires the request path's caches to the change notices of migration 0006: every server on the
 * database listens on `memsvc_cache` and drops the copies a notice names. Changes made through this
 * process are also announced here directly (`announceCacheChange`), so this process never reads its
 * own stale copy while the NOTIFY is on its way.
 */
import type { Kysely } from "kysely";
import { announce, type Database } from "../../../internal/db/mod.ts";
import type { Logger } from "../../../internal/log/mod.ts";
import type { NotifiedCache } from "./notified_cache.ts";

export const CACHE_CHANNEL = "memsvc_cache";

export interface RequestCaches {
  /** API token hash → its owner (tokens/api_tokens.ts). */
  tokens: NotifiedCache<unknown>;
  /** User id → active project id or null (projects/active_project.ts). */
  activeProjects: NotifiedCache<unknown>;
}

/**
 * Starts listening; until it has, the caches keep nothing. Without a listen (a test double of the
 * database) they stay empty, which is always correct.
 */
export async function listenForCacheChanges(
  database: Pick<Database<unknown>, "listen">,
  caches: RequestCaches,
  log: Logger,
): Promise<(() => Promise<void>) | undefined> {
  if (!database.listen) return undefined;
  return await database.listen(CACHE_CHANNEL, {
    notice: (payload) => dropNamed(caches, payload),
    listening: () => {
      caches.tokens.listening();
      caches.activeProjects.listening();
      log.debug("listening for cache notices", { channel: CACHE_CHANNEL });
    },
  });
}

function dropNamed(caches: RequestCaches, payload: string) {
  const what = payload.slice(2);
  if (payload.startsWith("t:")) caches.tokens.delete(what);
  else if (payload.startsWith("u:")) {
    caches.tokens.deleteOwner(what);
    caches.activeProjects.delete(what);
  } else if (payload.startsWith("a:")) caches.activeProjects.delete(what);
  else {
    // "a*" and anything this version does not know: drop everything rather than guess.
    if (payload !== "a*") caches.tokens.clear();
    caches.activeProjects.clear();
  }
}

/** After a committed change through `db`: drop this process's copies now (see the module doc). */
export function announceCacheChange<DB>(db: Kysely<DB>, payload: string): void {
  announce(db, CACHE_CHANNEL, payload);
}
