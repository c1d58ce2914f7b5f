/**
 * Request parsing for route handlers: the body or query through a zod schema, with malformed JSON
 * reported as a 400 like any other schema failure instead of surfacing as a 500.
 */
import type { Context } from "hono";
import { z } from "zod";
import { ValidationError } from "./errors.ts";

/**
 * An id as the tools hand them out (UUIDs, the identity library's ids, ...): letters, digits, `_` and
 * `-`. Checked before an id reaches the database, where a NUL in text is an error (a 500) instead of
 * "no such thing".
 */
export const recordId = z.string().regex(/^[A-Za-z0-9_-]{1,128}$/, "not an id");

/** Parses the JSON body; an empty body counts as `{}` so optional-only schemas accept it. */
export async function parseJson<S extends z.ZodType>(c: Context, schema: S): Promise<z.output<S>> {
  return parseJsonText(await c.req.text(), schema);
}

/** Parses JSON text through a schema, with malformed JSON as the same 400 as a schema failure. */
export function parseJsonText<S extends z.ZodType>(text: string, schema: S): z.output<S> {
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
