import { Hono } from "hono";
import type { AppEnv } from "../../../internal/http/mod.ts";

/** Liveness only: `{"ok":true}` and no infrastructure detail (deep health is an admin route). */
export const healthRoutes = new Hono<AppEnv>().get("/health", (c) => c.json({ ok: true }));
