/**
 * API keys' request budget becomes a token bucket (keys/shared_key_buckets.ts): the tokens a key had
 * when the replicas last settled, and when. Null until its first settlement (a full bucket). The fixed
 * window it replaces goes.
 */
import type { Migration } from "../../../../internal/db/mod.ts";

export const keyBuckets: Migration = {
  async up(db) {
    await db.schema.alterTable("api_keys")
      .addColumn("bucket_tokens", "double precision")
      .addColumn("bucket_at", "timestamptz")
      .execute();
    await db.schema.alterTable("api_keys").dropColumn("window_start").dropColumn("window_count").execute();
  },
};
