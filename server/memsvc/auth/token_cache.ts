/**
 * The API token → owner cache of the request path: without it every `/v1` call with an `nm_` token
 * pays a database round trip before its own work (on PGlite about as much as a remember's insert).
 * Copies are dropped by change notices (store/cache_notices.ts: a token deleted or rotated, its owner
 * changed, banned or removed) and re-read after at most 10 s regardless; a ban is judged at each use
 * from the copy's ban fields, so a ban that expires needs no notice.
 */
import type { KeyOwnerRow } from "../../../internal/auth/mod.ts";
import { NotifiedCache, type NotifiedCacheOptions } from "../store/notified_cache.ts";

/** What a token resolves to, as read from user_tokens joined with user (internal/auth/api_keys.ts). */
export type TokenOwnerRow = KeyOwnerRow;

export type TokenCache = NotifiedCache<TokenOwnerRow>;

export function createTokenCache(options?: NotifiedCacheOptions): TokenCache {
  return new NotifiedCache<TokenOwnerRow>(options);
}
