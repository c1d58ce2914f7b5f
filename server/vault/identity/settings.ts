/** The registration mode: invite-only (the default, seeded by migration 0001) or open. */
import type { Kysely } from "kysely";
import { z } from "zod";
import type { VaultDatabase } from "../store/db.ts";

export const registrationMode = z.enum(["open", "invite-only"]);
export type RegistrationMode = z.output<typeof registrationMode>;

export async function getRegistrationMode(db: Kysely<VaultDatabase>): Promise<RegistrationMode> {
  const row = await db.selectFrom("settings").select("value").where("key", "=", "registration_mode")
    .executeTakeFirst();
  return row?.value === "open" ? "open" : "invite-only";
}

export async function setRegistrationMode(db: Kysely<VaultDatabase>, mode: RegistrationMode): Promise<void> {
  await db.insertInto("settings").values({ key: "registration_mode", value: mode })
    .onConflict((oc) => oc.column("key").doUpdateSet({ value: mode, updated_at: new Date() }))
    .execute();
}
