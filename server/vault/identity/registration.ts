/**
 * Registration with an invite code, done right (notes/vault.md section 2): the invite is claimed
 * and the user inserted in ONE transaction, so
 * - of any number of concurrent claims of one code exactly one user is created (a conditional
 *   UPDATE … WHERE used_at IS NULL RETURNING, which PostgreSQL serialises on the row);
 * - a failed insert (an email already registered) rolls the claim back: the code is not burned;
 * - the first user, who becomes the admin and needs no invite, is decided inside the same
 *   transaction, under a row lock on the registration setting that every registration takes, so
 *   two first registrations cannot both become admin.
 */
import { hashPassword } from "better-auth/crypto";
import { HTTPException } from "hono/http-exception";
import { type Kysely, sql } from "kysely";
import { z } from "zod";
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, userName } from "../../../internal/auth/mod.ts";
import type { Database } from "../../../internal/db/mod.ts";
import type { VaultDatabase } from "../store/db.ts";

export const signUpBody = z.strictObject({
  email: z.email().max(254),
  password: z.string().min(PASSWORD_MIN_LENGTH).max(PASSWORD_MAX_LENGTH),
  name: userName,
  inviteCode: z.string().min(1).max(100).optional().describe("required unless registration is open"),
});

export type SignUp = z.output<typeof signUpBody>;

export interface Registered {
  userId: string;
  email: string;
  name: string;
  role: "admin" | "user";
}

function refuse(status: 403 | 409, error: string, code: string): never {
  throw new HTTPException(status, { res: Response.json({ error, code }, { status }) });
}

export async function register(database: Database<VaultDatabase>, input: SignUp): Promise<Registered> {
  const email = input.email.trim().toLowerCase();
  // Hashing is slow on purpose; it runs before the transaction so the lock is held briefly.
  const passwordHash = await hashPassword(input.password);
  const userId = crypto.randomUUID();
  return await database.db.transaction().execute(async (trx) => {
    const mode = await lockRegistration(trx);
    const first = (await trx.selectFrom("user").select("id").limit(1).executeTakeFirst()) === undefined;
    const now = new Date();
    // The first user founds the vault; after that an invite is needed unless registration is open.
    // A code given in open mode is still claimed, so it cannot be used again. The claim comes
    // first: if anything after it fails, the transaction (and so the claim) is rolled back.
    if (!first && (mode === "invite-only" || input.inviteCode !== undefined)) {
      if (input.inviteCode === undefined) refuse(403, "registration needs an invite code", "INVITE_REQUIRED");
      const claimed = await trx.updateTable("invite_codes")
        .set({ used_by: userId, used_at: now })
        .where("code", "=", input.inviteCode)
        .where("used_at", "is", null)
        .where("revoked_at", "is", null)
        .where((eb) => eb.or([eb("expires_at", "is", null), eb("expires_at", ">", sql<Date>`now()`)]))
        .returning("code")
        .executeTakeFirst();
      if (!claimed) refuse(403, "the invite code is unknown, used, revoked or expired", "INVALID_INVITE");
    }
    const role = first ? "admin" : "user";
    try {
      await trx.insertInto("user").values({
        id: userId,
        name: input.name,
        email,
        emailVerified: false,
        image: null,
        role,
        banned: false,
        banReason: null,
        banExpires: null,
      }).execute();
    } catch (err) {
      if ((err as { code?: string }).code === UNIQUE_VIOLATION) {
        refuse(409, "an account with this email exists", "EMAIL_TAKEN");
      }
      throw err;
    }
    await trx.insertInto("account").values({
      id: crypto.randomUUID(),
      accountId: userId,
      providerId: "credential",
      userId,
      password: passwordHash,
      updatedAt: now,
    }).execute();
    return { userId, email, name: input.name, role };
  });
}

const UNIQUE_VIOLATION = "23505";

/** Takes the registration lock (the mode setting's row, FOR UPDATE) and reads the mode under it. */
async function lockRegistration(trx: Kysely<VaultDatabase>): Promise<"open" | "invite-only"> {
  const row = await trx.selectFrom("settings").select("value").where("key", "=", "registration_mode")
    .forUpdate().executeTakeFirst();
  return row?.value === "open" ? "open" : "invite-only";
}
