/**
 * One declaration per HTTP operation, read by both sides of the API: `mountRoute` registers the
 * route with the guard its `access` names and validates its inputs with its schemas, and
 * document.ts describes it in /openapi.json from the same object. A limit, a field or a guard is
 * therefore stated once and the description cannot drift from what the server enforces.
 *
 * @example
 * export const forget = defineRoute({
 *   method: "delete", path: "/v1/memories/:id", operationId: "forgetMemory", tag: "memory",
 *   summary: "Forget an entry", access: "caller", params: z.object({ id: z.string() }),
 *   responses: { 200: { description: "deleted", schema: deletedResponse } },
 * });
 * mountRoute(app, forget, async (c, { params }) => c.json(await memory.forget(callerOf(c), params.id)));
 */
import type { Context, Handler, Hono, MiddlewareHandler } from "hono";
import type { z } from "zod";
import { parseJson, parseQuery } from "../../../internal/http/mod.ts";
import {
  requireAdmin,
  requireApiToken,
  requireBearer,
  requireCaller,
  requireSession,
} from "../auth/require.ts";
import type { MemsvcEnv } from "../env.ts";

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

export type Method = "get" | "post" | "put" | "delete";

export interface ResponseSpec {
  description: string;
  /** The body; JSON unless `contentType` says otherwise. */
  schema?: z.ZodType;
  contentType?: string;
}

export interface RouteSpec {
  method: Method;
  /** Hono syntax: `/v1/memories/:id`. */
  path: string;
  operationId: string;
  tag: string;
  summary: string;
  description?: string;
  access: Access;
  body?: z.ZodType;
  /**
   * A body the handler reads itself (JSON-RPC for the MCP transport, which answers malformed
   * messages in its own protocol): described in the document, not validated by mountRoute.
   */
  rawBody?: ResponseSpec;
  query?: z.ZodObject;
  params?: z.ZodObject;
  /** Success answers by status. */
  responses: Record<number, ResponseSpec>;
  /**
   * Error statuses beyond those every operation of its kind has (400 when it takes input, 401 and
   * 403 from its guard, 500): e.g. 404 'no such project', 409, 429.
   */
  errors?: readonly number[];
}

/** Keeps the literal type of a spec so mountRoute can type the parsed inputs. */
export function defineRoute<const S extends RouteSpec>(spec: S): S {
  return spec;
}

type Parsed<S, K extends "body" | "query" | "params"> = S extends { [P in K]: infer T extends z.ZodType }
  ? z.output<T>
  : undefined;

/** The validated inputs a handler receives. */
export interface Inputs<S extends RouteSpec> {
  body: Parsed<S, "body">;
  query: Parsed<S, "query">;
  params: Parsed<S, "params">;
}

export type RouteHandler<S extends RouteSpec> = (
  c: Context<MemsvcEnv>,
  inputs: Inputs<S>,
) => Response | Promise<Response>;

const GUARDS: Record<Access, (() => MiddlewareHandler<MemsvcEnv>) | undefined> = {
  public: undefined,
  caller: requireCaller,
  session: requireSession,
  admin: requireAdmin,
  "api-token": requireApiToken,
  bearer: requireBearer,
};

/**
 * Registers `spec` on `app`: its guard first (401/403), then its params, query and body through
 * their schemas (400 with structured issues), then `handler` with the parsed values.
 */
export function mountRoute<S extends RouteSpec>(
  app: Hono<MemsvcEnv>,
  spec: S,
  handler: RouteHandler<S>,
): Hono<MemsvcEnv> {
  const guard = GUARDS[spec.access];
  const run: Handler<MemsvcEnv> = async (c) => {
    const inputs = {
      params: spec.params?.parse(c.req.param()),
      query: spec.query ? parseQuery(c, spec.query) : undefined,
      body: spec.body ? await parseJson(c, spec.body) : undefined,
    } as Inputs<S>;
    return await handler(c, inputs);
  };
  return guard ? app.on(spec.method, spec.path, guard(), run) : app.on(spec.method, spec.path, run);
}

/** Registers several specs that share one handler (e.g. GET, POST and DELETE /mcp). */
export function mountRoutes<S extends RouteSpec>(
  app: Hono<MemsvcEnv>,
  specs: readonly S[],
  handler: RouteHandler<S>,
): Hono<MemsvcEnv> {
  for (const spec of specs) mountRoute(app, spec, handler);
  return app;
}
