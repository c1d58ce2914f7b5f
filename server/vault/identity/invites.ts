/** Invite codes: created by admins (optionally expiring), listed, revoked while unused. */
import { randomBytes } from "node:crypto";
import type { Kysely } from "kysely";
import { z } from "zod";
import type { Selectable } from "kysely";
import type { InviteCodesTable, VaultDatabase } from "../store/db.ts";

export const invite = z.object({
  id: z.string().describe("names the invite in URLs (DELETE /api/admin/invites/<id>)"),
  code: z.string().describe("what the invited person signs up with"),
  createdAt: z.iso.datetime(),
  expiresAt: z.iso.datetime().nullable(),
  usedBy: z.string().nullable().describe("the user who registered with it (null once that user is removed)"),
  usedAt: z.iso.datetime().nullable(),
  revokedAt: z.iso.datetime().nullable(),
  status: z.enum(["unused", "used", "revoked", "expired"]),
}).meta({ id: "Invite" });

export type Invite = z.output<typeof invite>;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

function toInvite(row: Selectable<InviteCodesTable>, now = new Date()): Invite {
  return {
    id: row.id,
    code: row.code,
    createdAt: row.created_at.toISOString(),
    expiresAt: iso(row.expires_at),
    usedBy: row.used_by,
    usedAt: iso(row.used_at),
    revokedAt: iso(row.revoked_at),
    status: row.used_at
      ? "used"
      : row.revoked_at
      ? "revoked"
      : row.expires_at && row.expires_at <= now
      ? "expired"
      : "unused",
  };
}

/** A new code: 16 random bytes, base64url (128 bits: not guessable). */
export async function createInvite(
  db: Kysely<VaultDatabase>,
  createdBy: string,
  expiresAt: Date | null,
): Promise<Invite> {
  const row = await db.insertInto("invite_codes")
    .values({
      id: crypto.randomUUID(),
      code: randomBytes(16).toString("base64url"),
      created_by: createdBy,
      expires_at: expiresAt,
    })
    .returningAll().executeTakeFirstOrThrow();
  return toInvite(row);
}

export async function listInvites(db: Kysely<VaultDatabase>): Promise<Invite[]> {
  const rows = await db.selectFrom("invite_codes").selectAll().orderBy("created_at", "desc").execute();
  return rows.map((row) => toInvite(row));
}

/** "revoked", or why not: an unknown code, or one already used (its account stays). */
export async function revokeInvite(
  db: Kysely<VaultDatabase>,
  id: string,
): Promise<"revoked" | "unknown" | "used"> {
  const done = await db.updateTable("invite_codes").set({ revoked_at: new Date() })
    .where("id", "=", id).where("used_at", "is", null).where("revoked_at", "is", null)
    .returning("code").executeTakeFirst();
  if (done) return "revoked";
  const row = await db.selectFrom("invite_codes").select(["used_at"]).where("id", "=", id)
    .executeTakeFirst();
  if (!row) return "unknown";
  return row.used_at ? "used" : "revoked";
}
