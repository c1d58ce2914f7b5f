/**
 *   GET /ws/yjs?path=<note>[&owner=<user id>]    collaborative editing of one note (WebSocket, Yjs)
 * The caller needs the note: their own, or shared with them (a read share, or a read-only API key,
 * syncs without writing). The protocol is y-protocols' sync and awareness (collab/collab_docs.ts).
 * Access is checked again whenever some access of the caller ends and at every heartbeat
 * (live/access_watch.ts): a socket whose credential or share ended is closed with 1008, one whose share
 * was narrowed to read keeps reading without writing.
 */
import { Hono } from "hono";
import type { Kysely } from "kysely";
import { z } from "zod";
import { callerOf } from "../../../internal/auth/mod.ts";
import type { CollabDocs } from "../collab/collab_docs.ts";
import type { VaultEnv } from "../env.ts";
import { normalizeNotePath, type NoteStore } from "../notes/mod.ts";
import { defineRoute, mountRoute, recordId } from "../openapi/route_spec.ts";
import { permissionFor } from "../sharing/shares.ts";
import type { AccessWatch } from "../live/access_watch.ts";
import { credentialHolds } from "../live/credential_check.ts";
import { POLICY_VIOLATION } from "../live/channel.ts";
import type { VaultDatabase } from "../store/db.ts";
import { refusal, withNoteErrors } from "./note_errors.ts";

export const collabApi = {
  yjs: defineRoute({
    method: "get",
    path: "/ws/yjs",
    operationId: "collabNote",
    tag: "live",
    access: "caller",
    summary: "Edit a note together (WebSocket, Yjs sync and awareness; Y.Text `content`)",
    description: "Binary frames: y-protocols sync (type 0) and awareness (type 1). With a read share or a " +
      "read-only key the document syncs to the client but its edits are not applied.",
    query: z.object({ path: z.string().min(1).max(500), owner: recordId.optional() }),
    responses: {
      101: { description: "switching to the WebSocket protocol" },
      426: { description: "not a WebSocket upgrade request", schema: z.object({ error: z.string() }) },
    },
    errors: [403, 404],
  }),
};

export function collabRoutes(
  { docs, db, store, origins, access }: {
    docs: CollabDocs;
    db: Kysely<VaultDatabase>;
    store: NoteStore;
    origins: string[];
    access: AccessWatch;
  },
): Hono<VaultEnv> {
  const app = new Hono<VaultEnv>();
  mountRoute(
    app,
    collabApi.yjs,
    withNoteErrors(async (c, { query }) => {
      const caller = callerOf(c);
      if (caller.via === "cookie" && !origins.includes(c.req.header("origin") ?? "")) {
        throw refusal(403, "forbidden", "a cookie opens a document from the vault's own pages only");
      }
      const path = normalizeNotePath(query.path);
      const owner = query.owner ?? caller.userId;
      const permission = async () =>
        owner === caller.userId ? "read-write" : await permissionFor(db, caller.userId, owner, path);
      const has = await permission();
      if (!has) throw refusal(404, "not_found", `${path} not found`);
      let canWrite = caller.scope !== "read" && has === "read-write";
      await store.read(owner, path); // 404 before the upgrade when there is no such note
      let handlers: Awaited<ReturnType<CollabDocs["join"]>> | undefined;
      let closed = false;
      let unwatch = () => {};
      const pending: Uint8Array[] = [];
      const response = c.env.upgrade?.({
        open: (socket) => {
          const end = (reason: string) => {
            if (closed) return;
            socket.close(POLICY_VIOLATION, reason);
            closed = true;
            unwatch();
            handlers?.close();
          };
          unwatch = access.watch(caller.userId, async () => {
            if (closed) return;
            if (!(await credentialHolds(db, caller))) return end("credential no longer valid");
            const now = await permission();
            if (!now) return end("the share ended");
            canWrite = caller.scope !== "read" && now === "read-write";
            handlers?.setCanWrite(canWrite);
          });
          void docs.join(owner, path, socket, canWrite).then((h) => {
            handlers = h;
            if (closed) return h.close();
            h.setCanWrite(canWrite); // narrowed while the document loaded
            for (const m of pending.splice(0)) h.message(m);
          }, () => socket.close(1011, "document not available"));
        },
        message: (socket, data, size) => {
          if (closed) return; // access ended: nothing more is taken from it
          if (typeof data === "string" || size > 2 * 1024 * 1024) {
            return socket.close(1003, "binary Yjs frames only");
          }
          if (handlers) handlers.message(data);
          else pending.push(data);
        },
        close: () => {
          closed = true;
          unwatch();
          handlers?.close();
        },
      });
      if (!response) return c.json({ error: "this is a WebSocket endpoint: send an upgrade request" }, 426);
      return response;
    }),
  );
  return app;
}
