/**
 * One declaration per HTTP operation, read by both sides of the API: `mountRoute` registers the
 * route with the guard its `access` names and validates its inputs with its schemas, and
 * document.ts describes it in the OpenAPI document from the same object. A limit, a field or a
 * guard is therefore stated once and the description cannot drift from what the server enforces.
 * A tool names its kinds of access and their guards once (`routeMounter`).
 *
 * @example
 * const { mountRoute } = routeMounter<AuthEnv, "public" | "caller">({ public: undefined, caller: requireCaller });
 * export const forget = defineRoute({
 *   method: "delete", path: "/v1/memories/:id", operationId: "forgetMemory", tag: "memory",
 *   summary: "Forget an entry", access: "caller", params: z.object({ id: z.string() }),
 *   responses: { 200: { description: "deleted", schema: deletedResponse } },
 * });
 * mountRoute(app, forget, async (c, { params }) => c.json(await memory.forget(callerOf(c), params.id)));
 */
import type { Context, Env, Handler, Hono, MiddlewareHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import type { z } from "zod";
import { parseJson, parseQuery } from "../http/mod.ts";

export type Method = "get" | "post" | "put" | "patch" | "delete";

export interface ResponseSpec {
  description: string;
  /** The body; JSON unless `contentType` says otherwise. */
  schema?: z.ZodType;
  contentType?: string;
}

export interface RouteSpec<A extends string = string> {
  method: Method;
  /** Hono syntax: `/v1/memories/:id`. */
  path: string;
  operationId: string;
  tag: string;
  summary: string;
  description?: string;
  /** Who may call it: one of the tool's kinds of access, each with one guard. */
  access: A;
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
   * 403 from its guard, 500): e.g. 404, 409, 429.
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

export type RouteHandler<E extends Env, S extends RouteSpec> = (
  c: Context<E>,
  inputs: Inputs<S>,
) => Response | Promise<Response>;

/** The guard of each kind of access; undefined for public. */
export type Guards<E extends Env, A extends string> = Record<A, (() => MiddlewareHandler<E>) | undefined>;

export interface RouteMounter<E extends Env, A extends string> {
  /**
   * Registers `spec` on `app`: its guard first (401/403), then its params, query and body through
   * their schemas (400 with structured issues), then `handler` with the parsed values.
   */
  mountRoute<S extends RouteSpec<A>>(app: Hono<E>, spec: S, handler: RouteHandler<E, S>): Hono<E>;
  /** Registers several specs that share one handler (e.g. GET, POST and DELETE /mcp). */
  mountRoutes<S extends RouteSpec<A>>(
    app: Hono<E>,
    specs: readonly S[],
    handler: RouteHandler<E, S>,
  ): Hono<E>;
}

export interface RouteMounterOptions {
  /**
   * The answer when path parameters fail their schema: a 400 with issues (default), or this body
   * with 404. A path segment that cannot be an id names no resource: the same answer as an unknown id.
   */
  paramsNotFound?: Record<string, unknown>;
}

/** mountRoute and mountRoutes for a tool's environment and kinds of access. */
export function routeMounter<E extends Env, A extends string>(
  guards: Guards<E, A>,
  options: RouteMounterOptions = {},
): RouteMounter<E, A> {
  const parseParams = (spec: RouteSpec<A>, c: Context<E>) => {
    if (!spec.params) return undefined;
    const parsed = spec.params.safeParse(c.req.param());
    if (parsed.success) return parsed.data;
    if (!options.paramsNotFound) throw parsed.error;
    throw new HTTPException(404, { res: Response.json(options.paramsNotFound, { status: 404 }) });
  };
  const mountRoute = <S extends RouteSpec<A>>(app: Hono<E>, spec: S, handler: RouteHandler<E, S>) => {
    const guard = guards[spec.access];
    const run: Handler<E> = async (c) => {
      const inputs = {
        params: parseParams(spec, c),
        query: spec.query ? parseQuery(c, spec.query) : undefined,
        body: spec.body ? await parseJson(c, spec.body) : undefined,
      } as Inputs<S>;
      return await handler(c, inputs);
    };
    if (guard) app.on(spec.method, spec.path, guard(), run);
    else app.on(spec.method, spec.path, run);
    return app;
  };
  return {
    mountRoute,
    mountRoutes(app, specs, handler) {
      for (const spec of specs) mountRoute(app, spec, handler);
      return app;
    },
  };
}
