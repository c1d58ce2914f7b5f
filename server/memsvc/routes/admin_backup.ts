/**
 * GET /v1/admin/backup: a consistent backup of the whole database, streamed as gzip'd JSON Lines
 * (the format of `memsvc backup`, see server/memsvc/portability/snapshot.ts). This is how a backup is
 * taken from the embedded database while the server holds its data dir (`memsvc backup --url`).
 * Admin sessions only; the download is recorded in the audit log (`admin.backup`) before it starts.
 * On the embedded database the snapshot holds its only connection, so other requests wait until the
 * backup is read to the end.
 */
import { Hono } from "hono";
import type { Database } from "../../../internal/db/mod.ts";
import { writeAudit } from "../../../internal/audit/mod.ts";
import { callerOf } from "../../../internal/auth/mod.ts";
import type { MemsvcEnv } from "../env.ts";
import { defineRoute, mountRoute } from "../openapi/route_spec.ts";
import { lineStream } from "../portability/lines.ts";
import { writeSnapshot } from "../portability/snapshot.ts";
import type { MemsvcDatabase } from "../store/db.ts";

export interface AdminBackupRoutesDeps {
  database: Database<MemsvcDatabase>;
}

export const adminBackupApi = {
  backup: defineRoute({
    method: "get",
    path: "/v1/admin/backup",
    operationId: "adminBackup",
    tag: "admin",
    access: "admin",
    summary: "Download a consistent backup of the whole database",
    description: "gzip'd JSON Lines, the format of `memsvc backup`; restore with `memsvc restore`.",
    responses: { 200: { description: "the backup (attachment)", contentType: "application/gzip" } },
  }),
};

export function adminBackupRoutes({ database }: AdminBackupRoutesDeps): Hono<MemsvcEnv> {
  return mountRoute(new Hono<MemsvcEnv>(), adminBackupApi.backup, async (c) => {
    await writeAudit(database.db, {
      actorId: callerOf(c).userId,
      action: "admin.backup",
      requestId: c.get("requestId"),
    });
    const name = `memsvc-backup-${new Date().toISOString().replace(/[:.]/g, "-")}.jsonl.gz`;
    const body = lineStream((sink) => writeSnapshot(database, sink), { gzip: true });
    return new Response(body, {
      status: 200,
      headers: {
        "content-type": "application/gzip",
        "content-disposition": `attachment; filename="${name}"`,
        "cache-control": "no-store",
      },
    });
  });
}
