/**
 * Whether the credential a /ws/vault socket was opened with still holds: its user is not disabled,
 * and its session or API key still exists and has not expired. Checked with every heartbeat, so a
 * user disabled (or a key revoked, or a session ended) on any replica loses the socket within one.
 */
import { type Kysely, sql } from "kysely";
import type { Caller } from "../../../internal/auth/mod.ts";
import type { VaultDatabase } from "../store/db.ts";

export async function credentialHolds(db: Kysely<VaultDatabase>, caller: Caller): Promise<boolean> {
  const user = await db.selectFrom("user").select(["banned", "banExpires"]).where("id", "=", caller.userId)
    .executeTakeFirst();
  if (!user || (user.banned && (!user.banExpires || new Date(user.banExpires) > new Date()))) return false;
  if (caller.via === "api-token" && caller.tokenHash) {
    const key = await db.selectFrom("api_keys").select("id").where("key_hash", "=", caller.tokenHash)
      .where((eb) => eb.or([eb("expires_at", "is", null), eb("expires_at", ">", sql<Date>`now()`)]))
      .executeTakeFirst();
    return key !== undefined;
  }
  if (caller.sessionId) {
    const session = await db.selectFrom("session").select("id").where("id", "=", caller.sessionId)
      .where("expiresAt", ">", sql<Date>`now()`).executeTakeFirst();
    return session !== undefined;
  }
  return true;
}
