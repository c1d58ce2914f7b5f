/**
 * The body a server route answers, read from its declaration (internal/openapi's `defineRoute`):
 * the browser apps import the route specs as types only, so the shapes they read are the ones the
 * server validates and documents, never written twice.
 *
 * @example
 * import type { notesApi } from "../../server/vault/routes/notes.ts";
 * type Tree = ResponseOf<typeof notesApi.tree>; // { entries: ...; shared: ... }
 */
import type { z } from "zod";

export type ResponseOf<S, Status extends number = 200> = S extends {
  responses: { [K in Status]: { schema: infer Z extends z.ZodType } };
} ? z.output<Z>
  : never;
