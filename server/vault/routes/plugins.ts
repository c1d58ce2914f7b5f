/**
 * Plugins over HTTP.
 * Admin (an admin's signed-in session):
 *   GET  /api/admin/plugins                  every plugin found, with its state and settings
 *   POST /api/admin/plugins                  install from a folder on the server {directory}
 *   POST /api/admin/plugins/:id/enable       load and activate (again, after an error)
 *   POST /api/admin/plugins/:id/disable      deactivate and unload
 *   PUT  /api/admin/plugins/:id/settings     set global settings {values}
 * Any caller:
 *   GET  /api/plugins                        the enabled plugins, for the web app to load
 *   GET  /api/plugins/:id/client.js          a plugin's client entry (a stable URL)
 *   GET  /api/plugins/:id/settings           the caller's settings of a plugin; PUT sets per-user ones
 *   *    /api/plugins/:id/<route>            a route the plugin registered (api.routes.register)
 * Admin changes are audited.
 */
import { readFile } from "node:fs/promises";
import { type Context, Hono } from "hono";
import { z } from "zod";
import { writeAudit } from "../../../internal/audit/mod.ts";
import { callerOf, requireCaller } from "../../../internal/auth/mod.ts";
import { errorBody, validationErrorBody } from "../../../internal/openapi/mod.ts";
import type { VaultEnv } from "../env.ts";
import { defineRoute, idParams, mountRoute, recordId } from "../openapi/route_spec.ts";
import { PluginError, type PluginManager } from "../plugins/plugin_manager.ts";
import type { Kysely } from "kysely";
import type { VaultDatabase } from "../store/db.ts";

const json = z.union([z.string(), z.number(), z.boolean(), z.null()]);
const setting = z.object({
  key: z.string(),
  type: z.enum(["string", "boolean", "number"]),
  default: json.optional(),
  label: z.string().optional(),
  perUser: z.boolean(),
});
const pluginInfo = z.object({
  id: z.string(),
  name: z.string().optional(),
  version: z.string().optional(),
  description: z.string().optional(),
  state: z.enum(["installed", "loaded", "active", "deactivating", "unloaded", "error"]),
  error: z.string().optional().describe("why it is in error"),
  enabled: z.boolean(),
  server: z.boolean(),
  client: z.boolean(),
  settings: z.array(setting),
  values: z.record(z.string(), json).describe("the global values (defaults where unset)"),
  routes: z.array(z.object({
    method: z.string(),
    path: z.string(),
    name: z.string().optional(),
    description: z.string().optional(),
  })),
}).meta({ id: "Plugin" });
const values = z.strictObject({ values: z.record(z.string(), json) });
const userSettings = z.object({ settings: z.array(setting), values: z.record(z.string(), json) });
const invalid = { description: "invalid request (`issues` says where)", schema: validationErrorBody };

export const pluginsApi = {
  list: defineRoute({
    method: "get",
    path: "/api/admin/plugins",
    operationId: "adminListPlugins",
    tag: "plugins",
    access: "admin",
    summary:
      "List plugins, with their lifecycle state (installed, loaded, active, deactivating, unloaded, error)",
    responses: {
      200: { description: "every plugin folder", schema: z.object({ plugins: z.array(pluginInfo) }) },
    },
  }),
  install: defineRoute({
    method: "post",
    path: "/api/admin/plugins",
    operationId: "adminInstallPlugin",
    tag: "plugins",
    access: "admin",
    summary: "Install a plugin from a folder on the server (copied into the plugins folder, not enabled)",
    body: z.strictObject({
      directory: z.string().min(1).max(4096).describe("an absolute path on the server"),
    }),
    responses: { 201: { description: "installed", schema: pluginInfo }, 400: invalid },
    errors: [409],
  }),
  enable: defineRoute({
    method: "post",
    path: "/api/admin/plugins/:id/enable",
    operationId: "adminEnablePlugin",
    tag: "plugins",
    access: "admin",
    summary: "Enable a plugin: its server part starts and activates (state active, or error with the reason)",
    params: idParams,
    responses: { 200: { description: "the plugin after activation", schema: pluginInfo } },
    errors: [404, 409],
  }),
  disable: defineRoute({
    method: "post",
    path: "/api/admin/plugins/:id/disable",
    operationId: "adminDisablePlugin",
    tag: "plugins",
    access: "admin",
    summary: "Disable a plugin: deactivate(), then its sandbox ends (state unloaded)",
    params: idParams,
    responses: { 200: { description: "the plugin", schema: pluginInfo } },
    errors: [404],
  }),
  configure: defineRoute({
    method: "put",
    path: "/api/admin/plugins/:id/settings",
    operationId: "adminConfigurePlugin",
    tag: "plugins",
    access: "admin",
    summary: "Set a plugin's global settings (declared in its manifest, not per user)",
    params: idParams,
    body: values,
    responses: { 200: { description: "the plugin", schema: pluginInfo }, 400: invalid },
    errors: [404],
  }),
  enabled: defineRoute({
    method: "get",
    path: "/api/plugins",
    operationId: "listPlugins",
    tag: "plugins",
    access: "caller",
    summary: "The enabled plugins: what the web app loads (client entry URL, settings for the caller)",
    responses: {
      200: {
        description: "enabled plugins",
        schema: z.object({
          plugins: z.array(z.object({
            id: z.string(),
            name: z.string(),
            version: z.string(),
            state: pluginInfo.shape.state,
            clientUrl: z.string().nullable(),
            settings: z.array(setting),
            values: z.record(z.string(), json),
          })),
        }),
      },
    },
  }),
  client: defineRoute({
    method: "get",
    path: "/api/plugins/:id/client.js",
    operationId: "pluginClientEntry",
    tag: "plugins",
    access: "caller",
    summary: "A plugin's client entry (an ES module exporting activate(api))",
    params: idParams,
    responses: { 200: { description: "JavaScript", contentType: "text/javascript" } },
    errors: [404],
  }),
  getSettings: defineRoute({
    method: "get",
    path: "/api/plugins/:id/settings",
    operationId: "getPluginSettings",
    tag: "plugins",
    access: "caller",
    summary: "A plugin's settings as they apply to the caller",
    params: idParams,
    responses: { 200: { description: "declarations and values", schema: userSettings } },
    errors: [404],
  }),
  setSettings: defineRoute({
    method: "put",
    path: "/api/plugins/:id/settings",
    operationId: "setPluginSettings",
    tag: "plugins",
    access: "caller",
    summary: "Set the caller's own values of a plugin's per-user settings",
    params: idParams,
    body: values,
    responses: { 200: { description: "declarations and values", schema: userSettings }, 400: invalid },
    errors: [404],
  }),
};

/** The plugins' own routes: described once (they are registered at run time), served by one handler. */
const routeDoc = (method: "get" | "post") =>
  defineRoute({
    method,
    path: "/api/plugins/:id/:route",
    operationId: method === "get" ? "pluginRouteGet" : "pluginRoutePost",
    tag: "plugins",
    access: "caller",
    summary: `A route a plugin registered (${method.toUpperCase()}; PUT, PATCH and DELETE alike)`,
    description:
      "Listed per plugin in GET /api/admin/plugins (`routes`) and offered as MCP tools. 503 when the " +
      "plugin is not active; 504 when the call ran past VAULT_PLUGIN_TIMEOUT_MS and 502 when the plugin " +
      "failed during it (it is then stopped and in error).",
    params: z.object({ id: recordId, route: z.string().describe("the route's path, may hold slashes") }),
    responses: {
      200: { description: "the plugin's answer (JSON; the plugin may answer another status)" },
      502: { description: "the plugin failed during the call", schema: errorBody },
      503: { description: "the plugin is not active", schema: errorBody },
      504: { description: "the call ran past VAULT_PLUGIN_TIMEOUT_MS", schema: errorBody },
    },
    errors: [404],
  });
export const pluginRouteDocs = [routeDoc("get"), routeDoc("post")];

/** A PluginError as its HTTP answer (400 with issues, else {error}). */
function answer(c: Context, err: unknown) {
  if (!(err instanceof PluginError)) throw err;
  if (err.status === 400) {
    return c.json({
      error: "invalid request",
      issues: err.issues ?? [{ path: [], message: err.message, code: "custom" }],
    }, 400);
  }
  return c.json({ error: err.message }, err.status);
}

export function pluginRoutes(
  { plugins, db }: { plugins: PluginManager; db: Kysely<VaultDatabase> },
): Hono<VaultEnv> {
  const app = new Hono<VaultEnv>();
  const audit = (c: Context<VaultEnv>, action: string, target: string) =>
    writeAudit(db, { actorId: callerOf(c).userId, action, target, requestId: c.get("requestId") });
  const guarded = <T>(c: Context<VaultEnv>, run: () => Promise<T>) => run().catch((err) => answer(c, err));

  mountRoute(app, pluginsApi.list, async (c) => c.json({ plugins: await plugins.list() }));
  mountRoute(app, pluginsApi.install, (c, { body }) =>
    guarded(c, async () => {
      const p = await plugins.install(body.directory);
      await audit(c, "plugin.install", p.id);
      return c.json(p, 201);
    }));
  mountRoute(app, pluginsApi.enable, (c, { params }) =>
    guarded(c, async () => {
      const p = await plugins.enable(params.id);
      await audit(c, "plugin.enable", p.id);
      return c.json(p);
    }));
  mountRoute(app, pluginsApi.disable, (c, { params }) =>
    guarded(c, async () => {
      const p = await plugins.disable(params.id);
      await audit(c, "plugin.disable", p.id);
      return c.json(p);
    }));
  mountRoute(app, pluginsApi.configure, (c, { params, body }) =>
    guarded(c, async () => {
      const p = await plugins.configure(params.id, body.values);
      await audit(c, "plugin.configure", p.id);
      return c.json(p);
    }));
  mountRoute(app, pluginsApi.enabled, async (c) => {
    const all = await plugins.list();
    const userId = callerOf(c).userId;
    const enabled = await Promise.all(
      all.filter((p) => p.enabled && p.name && p.version).map(async (p) => ({
        id: p.id,
        name: p.name!,
        version: p.version!,
        state: p.state,
        clientUrl: p.client ? `/api/plugins/${p.id}/client.js` : null,
        ...(await plugins.userSettings(p.id, userId)),
      })),
    );
    return c.json({ plugins: enabled });
  });
  mountRoute(app, pluginsApi.client, (c, { params }) =>
    guarded(c, async () => {
      const code = await readFile(plugins.clientEntry(params.id));
      return c.body(code, 200, {
        "content-type": "text/javascript; charset=utf-8",
        "cache-control": "no-cache",
      });
    }));
  mountRoute(
    app,
    pluginsApi.getSettings,
    (c, { params }) =>
      guarded(c, async () => c.json(await plugins.userSettings(params.id, callerOf(c).userId))),
  );
  mountRoute(
    app,
    pluginsApi.setSettings,
    (c, { params, body }) =>
      guarded(
        c,
        async () => c.json(await plugins.setUserSettings(params.id, callerOf(c).userId, body.values)),
      ),
  );

  app.all("/api/plugins/:id/*", requireCaller(), (c) =>
    guarded(c, async () => {
      const id = c.req.param("id");
      const prefix = `/api/plugins/${id}`;
      const path = c.req.path.slice(prefix.length) || "/";
      let body: unknown = null;
      if (!["GET", "DELETE"].includes(c.req.method)) {
        const text = await c.req.text();
        try {
          body = text ? JSON.parse(text) : null;
        } catch {
          return c.json({
            error: "invalid request",
            issues: [{ path: [], message: "not JSON", code: "invalid_json" }],
          }, 400);
        }
      }
      const res = await plugins.callRoute(
        id,
        { method: c.req.method, path, query: c.req.query(), body },
        callerOf(c),
      );
      return c.json(res.body ?? null, res.status as 200);
    }));
  return app;
}
