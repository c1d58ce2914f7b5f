/**
 * Builds a tool's OpenAPI 3.1 document from its route specs (route_spec.ts) with zod's own JSON
 * Schema 2020-12 output, the dialect OpenAPI 3.1 uses. Schemas named with `.meta({ id })` become
 * components and are referenced; everything else is inlined where it is used. What differs per
 * tool (its kinds of access, credentials and error texts) comes in through the options.
 *
 * @example
 * const doc = openApiDocument(specs, {
 *   title: "vault", description: "...", version: VERSION, baseUrl,
 *   securitySchemes: { apiKey: { type: "http", scheme: "bearer" } },
 *   securityOf: (access) => (access === "public" ? undefined : [{ apiKey: [] }]),
 *   impliedErrors: (access, hasInput) => [...(hasInput ? [400] : []), 500],
 *   errorResponses: errorResponses(),
 * });
 */
import { z } from "zod";
import type { ErrorResponse } from "./components.ts";
import type { RouteSpec } from "./route_spec.ts";

export interface DocumentOptions<A extends string = string> {
  /** info.title and info.description. */
  title: string;
  description: string;
  /** The service version (info.version). */
  version: string;
  /** The public origin, for servers[0]. */
  baseUrl: string;
  /** components/securitySchemes. */
  securitySchemes: Record<string, object>;
  /** The schemes (alternatives) an access kind accepts; undefined for public operations. */
  securityOf(access: A): Record<string, string[]>[] | undefined;
  /** The error statuses an operation has without saying so: from its inputs, its guard, and 500. */
  impliedErrors(access: A, hasInput: boolean): number[];
  /** The shared error responses (components/responses), by status. */
  errorResponses: Record<number, ErrorResponse>;
}

type Json = Record<string, unknown>;
type Io = "input" | "output";

const REF_PREFIX = "#/components/schemas/";

/** "/v1/memories/:id" -> "/v1/memories/{id}" */
export function openApiPath(honoPath: string): string {
  return honoPath.replace(/:([A-Za-z0-9_]+)/g, "{$1}");
}

/** Collects component schemas while converting, so every named schema is emitted once. */
class SchemaSet {
  readonly components: Record<string, Json> = {};

  /** The JSON Schema of `schema`, with named sub-schemas moved to components and referenced. */
  convert(schema: z.ZodType, io: Io): Json {
    const json = z.toJSONSchema(schema, { io, target: "draft-2020-12", unrepresentable: "any" }) as Json;
    const defs = (json.$defs ?? {}) as Record<string, Json>;
    delete json.$defs;
    delete json.$schema;
    const rootId = z.globalRegistry.get(schema)?.id;
    for (const [id, def] of Object.entries(defs)) this.#add(id, rewriteRefs(def) as Json);
    // A named root comes back as a $ref to its own definition, which is now a component.
    if (rootId && !this.components[rootId]) throw new Error(`schema "${rootId}" was not extracted`);
    return rootId ? { $ref: REF_PREFIX + rootId } : rewriteRefs(json) as Json;
  }

  #add(id: string, schema: Json) {
    if (!/^[A-Za-z][A-Za-z0-9_.-]*$/.test(id)) {
      // zod names unnamed recursive or reused schemas itself (__schema0): name them with .meta({id}).
      throw new Error(`schema "${id}" needs a component name: give it .meta({ id })`);
    }
    delete schema.id;
    const existing = this.components[id];
    if (existing && JSON.stringify(existing) !== JSON.stringify(schema)) {
      throw new Error(`schema id "${id}" names two different schemas (request and response side?)`);
    }
    this.components[id] = schema;
  }
}

/** zod refers to extracted definitions as #/$defs/<id>; in the document they live in components. */
function rewriteRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewriteRefs);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [
        k,
        k === "$ref" && typeof v === "string" && v.startsWith("#/$defs/")
          ? REF_PREFIX + v.slice("#/$defs/".length)
          : rewriteRefs(v),
      ]),
    );
  }
  return value;
}

function parametersOf(schemas: SchemaSet, where: "path" | "query", object: z.ZodObject | undefined): Json[] {
  if (!object) return [];
  const converted = schemas.convert(object, "input");
  const properties = (converted.properties ?? {}) as Record<string, Json>;
  const required = new Set((converted.required ?? []) as string[]);
  return Object.entries(properties).map(([name, schema]) => {
    const { description, ...rest } = schema;
    return {
      name,
      in: where,
      required: where === "path" || required.has(name),
      ...(description ? { description } : {}),
      schema: rest,
    };
  });
}

function operationOf<A extends string>(
  spec: RouteSpec<A>,
  schemas: SchemaSet,
  options: DocumentOptions<A>,
): Json {
  const responses: Record<string, Json> = {};
  for (const [status, response] of Object.entries(spec.responses)) {
    const type = response.contentType ?? "application/json";
    responses[status] = {
      description: response.description,
      ...(response.schema
        ? { content: { [type]: { schema: schemas.convert(response.schema, "output") } } }
        : {}),
    };
  }
  const hasInput = Boolean(spec.body || spec.query || spec.params);
  const errors = new Set([...options.impliedErrors(spec.access, hasInput), ...(spec.errors ?? [])]);
  for (const status of [...errors].sort()) {
    if (responses[status]) continue;
    const shared = options.errorResponses[status];
    if (!shared) throw new Error(`${spec.operationId}: no shared response for status ${status}`);
    responses[status] = { $ref: `#/components/responses/${shared.name}` };
  }
  const parameters = [
    ...parametersOf(schemas, "path", spec.params),
    ...parametersOf(schemas, "query", spec.query),
  ];
  const security = options.securityOf(spec.access);
  return {
    operationId: spec.operationId,
    tags: [spec.tag],
    summary: spec.summary,
    ...(spec.description ? { description: spec.description } : {}),
    ...(parameters.length ? { parameters } : {}),
    ...(spec.body
      ? {
        requestBody: {
          // parseJson reads an empty body as {}: a body whose fields are all optional may be left out.
          required: !spec.body.safeParse({}).success,
          content: { "application/json": { schema: schemas.convert(spec.body, "input") } },
        },
      }
      : spec.rawBody
      ? {
        requestBody: {
          required: true,
          description: spec.rawBody.description,
          content: {
            [spec.rawBody.contentType ?? "application/json"]: {
              ...(spec.rawBody.schema ? { schema: schemas.convert(spec.rawBody.schema, "input") } : {}),
            },
          },
        },
      }
      : {}),
    responses,
    ...(security ? { security } : {}),
  };
}

/** The OpenAPI 3.1 document for `specs`. */
export function openApiDocument<A extends string>(
  specs: readonly RouteSpec<A>[],
  options: DocumentOptions<A>,
): Json {
  const schemas = new SchemaSet();
  const paths: Record<string, Record<string, Json>> = {};
  const seen = new Set<string>();
  for (const spec of specs) {
    const path = openApiPath(spec.path);
    const key = `${spec.method} ${path}`;
    if (seen.has(key)) throw new Error(`two specs describe ${key}`);
    if (seen.has(`op:${spec.operationId}`)) throw new Error(`operationId ${spec.operationId} is used twice`);
    seen.add(key).add(`op:${spec.operationId}`);
    (paths[path] ??= {})[spec.method] = operationOf(spec, schemas, options);
  }
  const responses = Object.fromEntries(
    Object.values(options.errorResponses).map((r) => [
      r.name,
      {
        description: r.description,
        content: { "application/json": { schema: schemas.convert(r.schema, "output") } },
      },
    ]),
  );
  return {
    openapi: "3.1.1",
    info: { title: options.title, version: options.version, description: options.description },
    servers: [{ url: options.baseUrl }],
    tags: [...new Set(specs.map((s) => s.tag))].map((name) => ({ name })),
    paths,
    components: {
      schemas: Object.fromEntries(Object.entries(schemas.components).sort(([a], [b]) => a.localeCompare(b))),
      responses,
      securitySchemes: options.securitySchemes,
    },
  };
}
