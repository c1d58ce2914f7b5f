/**
 * The vault's kinds of access and their guards, bound to internal/openapi's route declaration.
 * - public: anyone;
 * - caller: a signed-in session (cookie) or an API key (`Authorization: Bearer vault_…`);
 * - session: a signed-in session only: an API key cannot mint or list keys;
 * - admin: an admin's signed-in session (an admin's API key does not administer);
 * - apiKey: an API key only (MCP hosts send a bearer, never a browser cookie).
 */
import { requireAdmin, requireApiToken, requireCaller, requireSession } from "../../../internal/auth/mod.ts";
import { z } from "zod";
import { recordId } from "../../../internal/http/mod.ts";
import { routeMounter, type RouteSpec as BaseRouteSpec } from "../../../internal/openapi/mod.ts";
import type { VaultEnv } from "../env.ts";

export { defineRoute } from "../../../internal/openapi/mod.ts";

export type Access = "public" | "caller" | "session" | "admin" | "apiKey";

export type RouteSpec = BaseRouteSpec<Access>;

/** The one check of ids (internal/http's recordId): UUIDs, the identity library's ids, trash entries, plugin ids. */
export { recordId };

/** `/…/:id` of every route: an id that cannot exist is 404, like one that does not. */
export const idParams = z.object({ id: recordId });

export const { mountRoute } = routeMounter<VaultEnv, Access>({
  public: undefined,
  caller: requireCaller,
  session: requireSession,
  admin: requireAdmin,
  apiKey: () => requireApiToken("send an API key as Authorization: Bearer vault_…"),
}, { paramsNotFound: { error: "not found", code: "not_found" } });
