/** GET /health (internal/openapi): liveness only. */
import { healthSpec } from "../../../internal/openapi/mod.ts";

export const healthApi = { health: healthSpec("Liveness only, no infrastructure detail.") };

export { healthRoutes } from "../../../internal/openapi/mod.ts";
