/**
 * memsvc's schema, as forward-only migrations applied at start (see internal/db/migrate.ts).
 * Add a migration as a new `NNNN_what.ts` file and list it here; never edit a released one.
 */
import type { Migration } from "../../../../internal/db/mod.ts";
import { engineState } from "./0001_engine_state.ts";
import { identity } from "./0002_identity.ts";
import { memory } from "./0003_memory.ts";
import { decay } from "./0004_decay.ts";
import { sessions } from "./0005_sessions.ts";
import { cacheNotices } from "./0006_cache_notices.ts";
import { hotHits } from "./0007_hot_hits.ts";

export const migrations: Record<string, Migration> = {
  "0001_engine_state": engineState,
  "0002_identity": identity,
  "0003_memory": memory,
  "0004_decay": decay,
  "0005_sessions": sessions,
  "0006_cache_notices": cacheNotices,
  "0007_hot_hits": hotHits,
};
