/**
 *   GET /ws/vault    the caller's live event channel (WebSocket)
 * The credential is checked on the upgrade request: the session cookie (from the vault's own
 * origins only: a page elsewhere cannot open a socket with the user's cookie) or an API key; a
 * disabled user has neither. The credential is checked again whenever some access of the user ends,
 * on any replica, and at every heartbeat (live/access_watch.ts, live/credential_check.ts): a withdrawn
 * one closes the socket with 1008. Events: live/events.ts; limits and heartbeats: live/channel.ts.
 */
import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { z } from "zod";
import { callerOf } from "../../../internal/auth/mod.ts";
import type { VaultEnv } from "../env.ts";
import type { Kysely } from "kysely";
import { type Channel, POLICY_VIOLATION } from "../live/channel.ts";
import type { AccessWatch } from "../live/access_watch.ts";
import { credentialHolds } from "../live/credential_check.ts";
import type { VaultDatabase } from "../store/db.ts";
import type { LiveHub } from "../live/live_hub.ts";
import { defineRoute, mountRoute } from "../openapi/route_spec.ts";

export const liveApi = {
  events: defineRoute({
    method: "get",
    path: "/ws/vault",
    operationId: "liveEvents",
    tag: "live",
    access: "caller",
    summary: "The caller's live event channel (WebSocket upgrade)",
    description:
      "JSON text frames: `note.created|updated|deleted|renamed|moved`, `folder.created|deleted|renamed` " +
      "with `ownerId`, `clientId`, `agentId`, `agentName`; `hello` first, `heartbeat` periodically. The client may " +
      'send `{"type":"ping"}`. A frame over 64 KB, or a client too slow to read its events, is closed with 1008.',
    responses: {
      101: { description: "switching to the WebSocket protocol" },
      426: { description: "not a WebSocket upgrade request", schema: z.object({ error: z.string() }) },
    },
    errors: [403],
  }),
};

export function liveRoutes(
  { hub, origins, db, access }: {
    hub: LiveHub;
    origins: string[];
    db: Kysely<VaultDatabase>;
    access: AccessWatch;
  },
): Hono<VaultEnv> {
  const app = new Hono<VaultEnv>();
  mountRoute(app, liveApi.events, (c) => {
    const caller = callerOf(c);
    if (caller.via === "cookie" && !origins.includes(c.req.header("origin") ?? "")) {
      throw new HTTPException(403, { message: "a cookie opens the channel from the vault's own pages only" });
    }
    let channel: Channel | undefined;
    const response = c.env.upgrade?.({
      open: (socket) => {
        const ch = channel = hub.attach(caller.userId, socket, () => unwatch());
        const unwatch = access.watch(caller.userId, async () => {
          if (!ch.closed && !(await credentialHolds(db, caller))) {
            ch.close(POLICY_VIOLATION, "credential no longer valid");
          }
        });
        ch.send({ kind: "hello", userId: caller.userId });
      },
      message: (_socket, data, size) => channel?.receive(data, size),
      close: () => channel?.gone(),
    });
    if (!response) return c.json({ error: "this is a WebSocket endpoint: send an upgrade request" }, 426);
    return response;
  });
  return app;
}
