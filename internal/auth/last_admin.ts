/**
 * The last admin can be neither demoted, disabled (banned) nor removed: the service would have
 * nobody left to administer it. Checks and the change run under one cluster-wide lock, so two
 * admins demoting each other at the same moment cannot both succeed.
 */
import { HTTPException } from "hono/http-exception";
import type { Kysely } from "kysely";
import { type Database, withAdvisoryLock } from "../db/mod.ts";
import type { IdentityTables } from "./identity_tables.ts";

export const LAST_ADMIN_CODE = "LAST_ADMIN_PROTECTED";

/** A parsed request to the identity library's admin routes that may take admin rights away. */
export interface AdminChange {
  route: string;
  body: Record<string, unknown>;
}

/** The user an identity-library admin request would strip of admin rights, if any. */
export function demotedUser({ route, body }: AdminChange): string | undefined {
  const userId = typeof body.userId === "string" ? body.userId : undefined;
  const data = (body.data ?? {}) as Record<string, unknown>;
  switch (route) {
    case "POST /admin/remove-user":
    case "POST /admin/ban-user":
      return userId;
    case "POST /admin/set-role":
      return isAdminRole(body.role) ? undefined : userId;
    case "POST /admin/update-user":
      return ("role" in data && !isAdminRole(data.role)) || data.banned === true ? userId : undefined;
    default:
      return undefined;
  }
}

function isAdminRole(role: unknown): boolean {
  return role === "admin" || (Array.isArray(role) && role.includes("admin"));
}

export class LastAdminError extends HTTPException {
  constructor() {
    super(400, {
      res: Response.json({ error: "cannot remove, demote or ban the last admin", code: LAST_ADMIN_CODE }, {
        status: 400,
      }),
    });
  }
}

export interface LastAdminGuardOptions {
  /** The cluster-wide lock name, e.g. "memsvc:admin-change". */
  lock: string;
  /** The user the change would strip of admin rights; undefined: the change cannot. */
  target: string | undefined;
  /** The admin making the change. */
  callerId: string;
}

/**
 * Runs `apply` (the change) unless it would leave no active admin; throws LastAdminError (400,
 * code LAST_ADMIN_PROTECTED) instead. Under the lock the checks use fresh rows and run in a fixed
 * order, last admin first, then whether the caller is (still) an admin (403): so when two admins
 * demote each other at the same moment, one succeeds and the other is told LAST_ADMIN_PROTECTED,
 * whichever arrives second.
 */
export function withLastAdminGuard<T, DB>(
  database: Database<DB>,
  options: LastAdminGuardOptions,
  apply: () => Promise<T>,
): Promise<T> {
  const { target, callerId } = options;
  if (!target) return apply();
  const db = database.db as unknown as Kysely<IdentityTables>;
  return withAdvisoryLock(database, options.lock, async () => {
    const admins = await db.selectFrom("user").select("id")
      .where("role", "=", "admin")
      .where((eb) => eb.or([eb("banned", "is", null), eb("banned", "=", false)]))
      .execute();
    if (admins.some((a) => a.id === target) && admins.length <= 1) throw new LastAdminError();
    if (!admins.some((a) => a.id === callerId)) {
      throw new HTTPException(403, { message: "admin routes need a signed-in admin session" });
    }
    return await apply();
  });
}
