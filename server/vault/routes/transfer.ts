/**
 * Import and export of a whole vault (issue 38):
 *   POST /api/import?dryRun=&overwrite=   the body is a zip (streamed to a temporary file, then read
 *                                         through its central directory): docs/vault.md "Import and export"
 *   GET  /api/export                      the caller's vault as a zip Obsidian opens as it is
 */
import { createWriteStream } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { Hono } from "hono";
import { z } from "zod";
import { callerOf } from "../../../internal/auth/mod.ts";
import type { Logger } from "../../../internal/log/mod.ts";
import type { RouteHandler } from "../../../internal/openapi/mod.ts";
import type { VaultEnv } from "../env.ts";
import type { IndexSync } from "../indexing/index_sync.ts";
import type { NoteStore } from "../notes/mod.ts";
import { defineRoute, mountRoute, type RouteSpec } from "../openapi/route_spec.ts";
import { exportVault } from "../transfer/export_vault.ts";
import { zipSource } from "../transfer/import_source.ts";
import { importVault } from "../transfer/import_vault.ts";
import { NotAZipError, zipStream } from "../transfer/zip.ts";
import { processTempName } from "../store/serving_marker.ts";
import { noteErrorBody, refusal, withNoteErrors } from "./note_errors.ts";

/** Where uploads wait while they are imported: `<VAULT_DATA_DIR>/.imports`. */
export function importsDir(dataDir: string): string {
  return join(dataDir, ".imports");
}

export interface TransferDeps {
  store: NoteStore;
  sync: IndexSync;
  /** Largest upload, and most bytes one import takes. */
  maxBytes: number;
  log?: Logger;
}

export const importReport = z.object({
  dryRun: z.boolean(),
  files: z.number().describe("files looked at"),
  created: z.number(),
  updated: z.number().describe("replaced (only with overwrite)"),
  unchanged: z.number().describe("already there with the same bytes: left alone"),
  aside: z.number().describe("of those, Obsidian's settings, kept below .obsidian/"),
  refused: z.array(z.object({ path: z.string(), reason: z.string() })).describe("not taken, and why"),
});

const flag = z.enum(["true", "false"]).optional();

export const transferApi = {
  importVault: defineRoute({
    tag: "transfer",
    access: "caller",
    method: "post",
    path: "/api/import",
    operationId: "importVault",
    summary: "Import a vault: a zip of notes, canvases and attachments (an Obsidian vault as it is)",
    description:
      "Each file goes to its path in the caller's vault; `.obsidian/` is kept aside (stored, never " +
      "listed); symlinks, paths outside the vault, hidden files, names the vault cannot hold and files over the " +
      "limits are refused and listed with the reason. A file already there with the same bytes is left alone, so " +
      "a second run changes nothing; other bytes there are refused unless `overwrite=true`. `dryRun=true` " +
      "reports without writing. The upload is limited by VAULT_IMPORT_MAX_BYTES.",
    query: z.object({ dryRun: flag, overwrite: flag }),
    rawBody: { description: "the zip archive", contentType: "application/zip" },
    responses: {
      200: { description: "what was taken, left alone and refused", schema: importReport },
      400: { description: "not a zip archive (`invalid_archive`)", schema: noteErrorBody },
      413: { description: "larger than VAULT_IMPORT_MAX_BYTES", schema: noteErrorBody },
    },
    errors: [400, 413],
  }),
  exportVault: defineRoute({
    tag: "transfer",
    access: "caller",
    method: "get",
    path: "/api/export",
    operationId: "exportVault",
    summary: "The caller's vault as a zip: every file at its path, with `.obsidian/` (no trash)",
    responses: { 200: { description: "a zip archive, streamed", contentType: "application/zip" } },
  }),
} satisfies Record<string, RouteSpec>;

export function transferRoutes({ store, sync, maxBytes, log }: TransferDeps): Hono<VaultEnv> {
  const app = new Hono<VaultEnv>();
  const mount = <S extends RouteSpec>(s: S, h: RouteHandler<VaultEnv, S>) =>
    mountRoute(app, s, withNoteErrors(h));

  mount(transferApi.importVault, async (c, { query }) => {
    const { userId } = callerOf(c);
    const body = c.req.raw.body;
    if (!body) throw refusal(400, "invalid_archive", "the body must be a zip archive");
    const dir = importsDir(store.dataDir);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const tmp = join(dir, processTempName(".zip"));
    try {
      let received = 0;
      const count = new Transform({
        transform(chunk: Buffer, _enc, done) {
          received += chunk.length;
          if (received > maxBytes) {
            done(refusal(413, "too_large", `an import is limited to ${maxBytes} bytes`));
          } else done(null, chunk);
        },
      });
      await pipeline(
        Readable.fromWeb(body as import("node:stream/web").ReadableStream),
        count,
        createWriteStream(tmp),
      );
      let source;
      try {
        source = await zipSource(tmp);
      } catch (err) {
        if (err instanceof NotAZipError) {
          throw refusal(400, "invalid_archive", "the body is not a zip archive");
        }
        throw err;
      }
      try {
        const report = await importVault({ store, sync, userId }, source, {
          dryRun: query.dryRun === "true",
          overwrite: query.overwrite === "true",
          maxBytes,
        });
        log?.info("vault imported", {
          userId,
          dryRun: report.dryRun,
          created: report.created,
          updated: report.updated,
          unchanged: report.unchanged,
          refused: report.refused.length,
        });
        return c.json(report);
      } finally {
        await source.close();
      }
    } finally {
      await rm(tmp, { force: true });
    }
  });

  mount(transferApi.exportVault, (c) => {
    const { userId } = callerOf(c);
    const zip = zipStream();
    exportVault(store, userId, zip).catch((err) => log?.error("vault export failed", { err, userId }));
    const day = new Date().toISOString().slice(0, 10);
    return new Response(zip.readable, {
      status: 200,
      headers: {
        "content-type": "application/zip",
        "content-disposition": `attachment; filename="vault-${day}.zip"`,
      },
    });
  });

  return app;
}
