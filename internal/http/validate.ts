/**
 * Request parsing for route handlers: the body or query through a zod schema, with malformed JSON
 * reported as a 400 like any other schema failure instead of surfacing as a 500.
 */
import type { Context } from "hono";
import type { z } from "zod";
import { ValidationError } from "./errors.ts";

/** Parses the JSON body; an empty body counts as `{}` so optional-only schemas accept it. */
export async function parseJson<S extends z.ZodType>(c: Context, schema: S): Promise<z.output<S>> {
  const text = await c.req.text();
  let value: unknown = {};
  if (text.trim() !== "") {
    try {
      value = JSON.parse(text);
    } catch {
      throw new ValidationError([{ path: [], message: "body is not valid JSON", code: "invalid_json" }]);
    }
  }
  return schema.parse(value);
}

/** Parses the query string (single values) through a schema; use z.coerce for numbers. */
export function parseQuery<S extends z.ZodType>(c: Context, schema: S): z.output<S> {
  return schema.parse(c.req.query());
}
