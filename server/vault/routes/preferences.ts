/**
 *   GET /api/me/preferences   the caller's web-app preferences ({} until first written)
 *   PUT /api/me/preferences   replace them (typed keys, unknown keys refused, at most 16 KiB)
 * A session or an API key (a read-only key reads only): a script may set up a user's layout.
 * Cookie writes need the `X-Requested-With` header like every other cookie write.
 */
import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import type { Kysely } from "kysely";
import { callerOf } from "../../../internal/auth/mod.ts";
import type { VaultEnv } from "../env.ts";
import {
  getPreferences,
  MAX_PREFERENCES_BYTES,
  preferencesSchema,
  putPreferences,
  storedPreferences,
} from "../identity/preferences.ts";
import { defineRoute, mountRoute } from "../openapi/route_spec.ts";
import type { VaultDatabase } from "../store/db.ts";

export const preferencesApi = {
  get: defineRoute({
    method: "get",
    path: "/api/me/preferences",
    operationId: "getPreferences",
    tag: "account",
    access: "caller",
    summary: "The caller's web-app preferences (sidebar layout, editor toggles)",
    responses: { 200: { description: "the stored preferences", schema: storedPreferences } },
  }),
  put: defineRoute({
    method: "put",
    path: "/api/me/preferences",
    operationId: "putPreferences",
    tag: "account",
    access: "caller",
    summary: "Replace the caller's web-app preferences",
    description:
      `Every key is optional; an unknown key is refused (400). At most ${MAX_PREFERENCES_BYTES} bytes of JSON.`,
    body: preferencesSchema,
    responses: { 200: { description: "the stored preferences", schema: storedPreferences } },
    errors: [413],
  }),
};

export function preferencesRoutes({ db }: { db: Kysely<VaultDatabase> }): Hono<VaultEnv> {
  const app = new Hono<VaultEnv>();
  mountRoute(app, preferencesApi.get, async (c) => c.json(await getPreferences(db, callerOf(c).userId)));
  mountRoute(app, preferencesApi.put, async (c, { body }) => {
    if (new TextEncoder().encode(JSON.stringify(body)).length > MAX_PREFERENCES_BYTES) {
      throw new HTTPException(413, {
        message: `preferences are at most ${MAX_PREFERENCES_BYTES} bytes of JSON`,
      });
    }
    return c.json(await putPreferences(db, callerOf(c).userId, body));
  });
  return app;
}
