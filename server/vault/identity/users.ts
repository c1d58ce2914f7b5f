/**
 * The admin's view of users: list, change role, disable or enable, remove. Every change that could
 * leave no active admin goes through internal/auth's last-admin guard. Disabling a user also ends
 * their sessions; caller resolution refuses a disabled user's session and API keys anyway.
 */
import { z } from "zod";
import { withLastAdminGuard } from "../../../internal/auth/mod.ts";
import type { Database } from "../../../internal/db/mod.ts";
import type { VaultDatabase } from "../store/db.ts";

export const LAST_ADMIN_LOCK = "vault:admin-change";

export const adminUser = z.object({
  id: z.string(),
  email: z.string(),
  name: z.string(),
  role: z.enum(["admin", "user"]),
  disabled: z.boolean(),
  createdAt: z.iso.datetime(),
}).meta({ id: "AdminUser" });

export type AdminUser = z.output<typeof adminUser>;

export const userChange = z.strictObject({
  role: z.enum(["admin", "user"]).optional(),
  disabled: z.boolean().optional(),
}).refine((v) => v.role !== undefined || v.disabled !== undefined, "give role, disabled or both");

const columns = ["id", "email", "name", "role", "banned", "createdAt"] as const;

function toUser(
  row: {
    id: string;
    email: string;
    name: string;
    role: string | null;
    banned: boolean | null;
    createdAt: Date;
  },
): AdminUser {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    role: row.role === "admin" ? "admin" : "user",
    disabled: row.banned === true,
    createdAt: row.createdAt.toISOString(),
  };
}

export async function listUsers({ db }: Database<VaultDatabase>): Promise<AdminUser[]> {
  const rows = await db.selectFrom("user").select(columns).orderBy("createdAt").orderBy("id").execute();
  return rows.map(toUser);
}

/** The changed user, or undefined when there is no such user. */
export async function changeUser(
  database: Database<VaultDatabase>,
  callerId: string,
  userId: string,
  change: z.output<typeof userChange>,
): Promise<AdminUser | undefined> {
  const strips = change.role === "user" || change.disabled === true;
  return await withLastAdminGuard(
    database,
    { lock: LAST_ADMIN_LOCK, target: strips ? userId : undefined, callerId },
    async () => {
      const row = await database.db.updateTable("user")
        .set({
          ...(change.role ? { role: change.role } : {}),
          ...(change.disabled !== undefined
            ? { banned: change.disabled, banReason: null, banExpires: null }
            : {}),
          updatedAt: new Date(),
        })
        .where("id", "=", userId).returning(columns).executeTakeFirst();
      if (row && change.disabled) {
        await database.db.deleteFrom("session").where("userId", "=", userId).execute();
      }
      return row && toUser(row);
    },
  );
}

/** Whether the user existed; their sessions, accounts and API keys go with them (cascade). */
export async function removeUser(
  database: Database<VaultDatabase>,
  callerId: string,
  userId: string,
): Promise<boolean> {
  return await withLastAdminGuard(
    database,
    { lock: LAST_ADMIN_LOCK, target: userId, callerId },
    async () => {
      const row = await database.db.deleteFrom("user").where("id", "=", userId).returning("id")
        .executeTakeFirst();
      return row !== undefined;
    },
  );
}
