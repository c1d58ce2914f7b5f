/**
 * The audit log for admins, newest first. Reading it is itself recorded (`admin.audit-log`, after the
 * read, so an entry never lists itself): who looked at the record of actions is part of the record.
 */
import { Hono } from "hono";
import type { Kysely } from "kysely";
import { z } from "zod";
import { parseQuery } from "../../../internal/http/mod.ts";
import { listAudit, writeAudit } from "../audit/audit_log.ts";
import { callerOf } from "../auth/caller.ts";
import { requireAdmin } from "../auth/require.ts";
import type { MemsvcEnv } from "../env.ts";
import type { MemsvcDatabase } from "../store/db.ts";

export interface AdminAuditLogRoutesDeps {
  db: Kysely<MemsvcDatabase>;
}

const MAX_AUDIT_LIMIT = 500;
const limitError = `limit must be an integer from 1 to ${MAX_AUDIT_LIMIT}`;
const auditQuery = z.object({
  limit: z.coerce.number({ error: limitError }).int({ error: limitError }).min(1, { error: limitError })
    .max(MAX_AUDIT_LIMIT, { error: limitError }).default(50),
});

export function adminAuditLogRoutes({ db }: AdminAuditLogRoutesDeps): Hono<MemsvcEnv> {
  return new Hono<MemsvcEnv>().get("/v1/admin/audit-log", requireAdmin(), async (c) => {
    const { limit } = parseQuery(c, auditQuery);
    const entries = await listAudit(db, limit);
    await writeAudit(db, {
      actorId: callerOf(c).userId,
      action: "admin.audit-log",
      requestId: c.get("requestId"),
      metadata: { limit },
    });
    return c.json({ entries });
  });
}
