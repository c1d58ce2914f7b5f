/** Schemas of GET /v1/admin/audit-log (routes/admin_audit_log.ts): they validate and describe it. */
import { z } from "zod";
import { jsonValue } from "../memory/schemas.ts";

export const MAX_AUDIT_LIMIT = 500;
const limitError = `limit must be an integer from 1 to ${MAX_AUDIT_LIMIT}`;

export const auditQuery = z.object({
  limit: z.coerce.number({ error: limitError }).int({ error: limitError }).min(1, { error: limitError })
    .max(MAX_AUDIT_LIMIT, { error: limitError }).default(50).describe("how many entries, newest first"),
});

export const auditLogResponse = z.object({
  entries: z.array(z.object({
    id: z.string(),
    at: z.iso.datetime(),
    actorId: z.string().nullable(),
    action: z.string().describe("e.g. token.create, project.share, admin.set-role"),
    target: z.string().nullable(),
    metadata: z.record(z.string(), jsonValue).describe("includes the requestId"),
  })),
});
