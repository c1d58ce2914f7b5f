/** GET /health (internal/openapi): liveness only; deep health is an admin route. */
import { healthRoutes as liveness, healthSpec } from "../../../internal/openapi/mod.ts";

export const healthApi = {
  health: healthSpec("Liveness only, no infrastructure detail (admins: GET /v1/admin/health/deep)."),
};

export const healthRoutes = liveness();
