/**
 * Maps the notes library's and search's refusals to HTTP answers: `NoteError.status` with its
 * safe message and stable `code` (a conflict adds `currentVersion`, an invalid canvas its `issues`),
 * a malformed search query 400 with the position. Anything else goes on to the central handler
 * (500, detail only in the log), so no filesystem path or stack reaches a client.
 */
import type { Context, Env } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { z } from "zod";
import { ConflictError, InvalidCanvasError, NoteError } from "../notes/mod.ts";
import type { RouteHandler, RouteSpec } from "../../../internal/openapi/mod.ts";
import { SearchQueryError } from "../search/mod.ts";

export const noteErrorBody = z.object({
  error: z.string(),
  code: z.string().describe(
    "invalid_path, not_found, already_exists, conflict, not_empty, too_large, not_a_note, " +
      "unsupported_type, type_mismatch, invalid_canvas, invalid_query, forbidden",
  ),
  currentVersion: z.string().optional().describe("conflict: the version on disk now"),
  issues: z.array(z.object({ path: z.array(z.union([z.string(), z.number()])), message: z.string() }))
    .optional(),
  position: z.number().optional().describe("invalid_query: where in the query"),
});

function answer(status: number, body: z.input<typeof noteErrorBody>): HTTPException {
  const res = new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=UTF-8" },
  });
  return new HTTPException(status as ContentfulStatusCode, { res, message: body.error });
}

/** The HTTP error for `err`, or `err` itself when it is not one of ours to describe. */
export function httpErrorOf(err: unknown): unknown {
  if (err instanceof ConflictError) {
    return answer(409, { error: err.message, code: err.code, currentVersion: err.currentVersion });
  }
  if (err instanceof InvalidCanvasError) {
    return answer(400, { error: err.message, code: err.code, issues: err.issues });
  }
  if (err instanceof NoteError) return answer(err.status, { error: err.message, code: err.code });
  if (err instanceof SearchQueryError) {
    return answer(400, { error: err.message, code: "invalid_query", position: err.position });
  }
  return err;
}

/** A thrown refusal with a code, for the routes' own checks (sharing). */
export function refusal(status: number, code: string, error: string): HTTPException {
  return answer(status, { error, code });
}

/** Wraps a handler so the errors above get their answers. */
export function withNoteErrors<E extends Env, S extends RouteSpec>(
  handler: RouteHandler<E, S>,
): RouteHandler<E, S> {
  return async (c: Context<E>, inputs) => {
    try {
      return await handler(c, inputs);
    } catch (err) {
      throw httpErrorOf(err);
    }
  };
}
