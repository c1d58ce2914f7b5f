import { Hono } from "hono";
import { z } from "zod";
import type { VaultEnv } from "../env.ts";
import { defineRoute, mountRoute } from "../openapi/route_spec.ts";

export const healthApi = {
  health: defineRoute({
    method: "get",
    path: "/health",
    operationId: "health",
    tag: "health",
    access: "public",
    summary: "Liveness",
    description: "Liveness only, no infrastructure detail.",
    responses: { 200: { description: "the server is up", schema: z.object({ ok: z.literal(true) }) } },
  }),
};

export function healthRoutes(): Hono<VaultEnv> {
  return mountRoute(new Hono<VaultEnv>(), healthApi.health, (c) => c.json({ ok: true as const }));
}
