/**
 * GET /health: liveness only, `{"ok":true}`, public, with no infrastructure detail (a tool puts
 * deep checks behind its admin routes). The spec and the route every server mounts.
 */
import { Hono } from "hono";
import { z } from "zod";
import type { AppEnv } from "../http/mod.ts";
import { defineRoute } from "./route_spec.ts";

/** The spec of GET /health; `description` may point at the tool's deep health route. */
export function healthSpec(description: string) {
  return defineRoute({
    method: "get",
    path: "/health",
    operationId: "health",
    tag: "health",
    access: "public",
    summary: "Liveness",
    description,
    responses: { 200: { description: "the server is up", schema: z.object({ ok: z.literal(true) }) } },
  });
}

export function healthRoutes(): Hono<AppEnv> {
  return new Hono<AppEnv>().get("/health", (c) => c.json({ ok: true as const }));
}
