/**
 * The audit log for admins, newest first. Reading it is itself recorded (`admin.audit-log`, after the
 * read, so an entry never lists itself): who looked at the record of actions is part of the record.
 */
import { Hono } from "hono";
import type { Kysely } from "kysely";
import { listAudit, writeAudit } from "../../../internal/audit/mod.ts";
import { callerOf } from "../../../internal/auth/mod.ts";
import { auditLogResponse, auditQuery } from "../audit/schemas.ts";
import type { MemsvcEnv } from "../env.ts";
import { defineRoute, mountRoute } from "../openapi/route_spec.ts";
import type { MemsvcDatabase } from "../store/db.ts";

export interface AdminAuditLogRoutesDeps {
  db: Kysely<MemsvcDatabase>;
}

export const adminAuditLogApi = {
  list: defineRoute({
    method: "get",
    path: "/v1/admin/audit-log",
    operationId: "adminAuditLog",
    tag: "admin",
    access: "admin",
    summary: "Recent audit entries, newest first",
    description: "Reading the log is itself recorded (admin.audit-log).",
    query: auditQuery,
    responses: { 200: { description: "the entries", schema: auditLogResponse } },
  }),
};

export function adminAuditLogRoutes({ db }: AdminAuditLogRoutesDeps): Hono<MemsvcEnv> {
  return mountRoute(new Hono<MemsvcEnv>(), adminAuditLogApi.list, async (c, { query: { limit } }) => {
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
