import { Hono } from "hono";
import { z } from "zod";
import type { AppEnv } from "../../../internal/http/mod.ts";
import { defineRoute } from "../openapi/route_spec.ts";

export const healthApi = {
  health: defineRoute({
    method: "get",
    path: "/health",
    operationId: "health",
    tag: "health",
    access: "public",
    summary: "Liveness",
    description: "Liveness only, no infrastructure detail (admins: GET /v1/admin/health/deep).",
    responses: { 200: { description: "the server is up", schema: z.object({ ok: z.literal(true) }) } },
  }),
};

/** Liveness only: `{"ok":true}` and no infrastructure detail (deep health is an admin route). */
export const healthRoutes = new Hono<AppEnv>().get(healthApi.health.path, (c) => c.json({ ok: true }));
