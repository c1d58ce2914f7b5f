/**
 * memsvc's kinds of access and their guards, bound to internal/openapi's route declaration:
 * `defineRoute` states an operation once, `mountRoute` registers it behind the guard its access
 * names, and openapi/document.ts describes it from the same object.
 *
 * @example
 * export const forget = defineRoute({
 *   method: "delete", path: "/v1/memories/:id", operationId: "forgetMemory", tag: "memory",
 *   summary: "Forget an entry", access: "caller", params: z.object({ id: z.string() }),
 *   responses: { 200: { description: "deleted", schema: deletedResponse } },
 * });
 * mountRoute(app, forget, async (c, { params }) => c.json(await memory.forget(callerOf(c), params.id)));
 */
import {
  requireAdmin,
  requireApiToken,
  requireBearer,
  requireCaller,
  requireSession,
} from "../../../internal/auth/mod.ts";
import { routeMounter, type RouteSpec as BaseRouteSpec } from "../../../internal/openapi/mod.ts";
import type { MemsvcEnv } from "../env.ts";

export { defineRoute } from "../../../internal/openapi/mod.ts";

/**
 * Who may call an operation; each maps to one guard and one set of security schemes:
 * - public: anyone;
 * - caller: any credential (nm_ API token, ns_ session bearer, session cookie);
 * - session: a dashboard session (cookie or ns_ bearer), not an API token;
 * - admin: an admin's dashboard session;
 * - api-token: an nm_ API token only;
 * - bearer: a bearer (nm_ or ns_), not a cookie (MCP).
 */
export type Access = "public" | "caller" | "session" | "admin" | "api-token" | "bearer";

export type RouteSpec = BaseRouteSpec<Access>;

export const { mountRoute, mountRoutes } = routeMounter<MemsvcEnv, Access>({
  public: undefined,
  caller: requireCaller,
  session: requireSession,
  admin: requireAdmin,
  "api-token": () => requireApiToken("rotate-token needs the nm_ API token being rotated"),
  bearer: () => requireBearer("MCP needs a bearer token (nm_ or ns_)"),
});
