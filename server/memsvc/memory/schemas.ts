/**
 * Request and response schemas of the memory routes. The request schemas validate requests and
 * describe them in /openapi.json (routes/memories.ts), so a limit can only be stated once; messages
 * name the limit they enforce. The response schemas describe what the routes answer.
 */
import { z } from "zod";
import type { JsonValue } from "../store/db.ts";
import { LIMITS } from "./limits.ts";

const L = LIMITS;

function keysWithin(value: unknown, max: number): boolean {
  if (Array.isArray(value)) return value.every((v) => keysWithin(v, max));
  if (value && typeof value === "object") {
    return Object.entries(value).every(([k, v]) => k.length <= max && keysWithin(v, max));
  }
  return true;
}

/** Any JSON value (z.json() with a name: a recursive schema needs one to be described). */
export const jsonValue: z.ZodType<JsonValue> = z.lazy(() =>
  z.union([
    z.string(),
    z.number(),
    z.boolean(),
    z.null(),
    z.array(jsonValue),
    z.record(z.string(), jsonValue),
  ])
).meta({ id: "JsonValue" });

export const metadataSchema = z.record(z.string(), jsonValue)
  .refine((m) => new TextEncoder().encode(JSON.stringify(m)).length <= L.maxMetadataBytes, {
    message: `metadata must be at most ${L.maxMetadataBytes} bytes serialized (limit: maxMetadataBytes)`,
  })
  .refine((m) => keysWithin(m, L.maxMetadataKeyChars), {
    message: `metadata keys must be at most ${L.maxMetadataKeyChars} characters (limit: maxMetadataKeyChars)`,
  });

const content = z.string()
  .refine((s) => s.trim().length > 0, { message: "content must not be empty" })
  .refine((s) => s.length <= L.maxContentChars, {
    message: `content must be at most ${L.maxContentChars} characters: split it into one fact per entry`,
  });

const confidence = z.number().min(0, "confidence must be between 0 and 1").max(
  1,
  "confidence must be between 0 and 1",
);
const sourceType = z.string().trim().min(1).max(L.maxSourceTypeChars);
const capturedFrom = z.string().max(L.maxCapturedFromChars);
const namespace = z.string().trim().min(1).max(L.maxNamespaceChars)
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.:-]*$/, "namespace may hold letters, digits, '_', '.', ':' and '-'");
const projectRef = z.string().trim().min(1).max(200);
/** A conversation: memories of one user with the same session id, in capture order. */
const sessionId = z.string().trim().min(1, "session_id must not be empty").max(
  L.maxSessionIdChars,
  `session_id must be at most ${L.maxSessionIdChars} characters (limit: maxSessionIdChars)`,
);

const includes = (what: string, item: z.ZodType<string, string>) =>
  z.array(item).max(L.maxIncludes, `${what} may list at most ${L.maxIncludes} entries (limit: maxIncludes)`);

export const rememberBody = z.object({
  content,
  project: projectRef.optional(),
  namespace: namespace.optional(),
  metadata: metadataSchema.optional(),
  force: z.boolean().optional(),
  source_type: sourceType.optional(),
  captured_from: capturedFrom.optional(),
  confidence: confidence.optional(),
  session_id: sessionId.optional(),
}).strict();

export const updateBody = z.object({
  content: content.optional(),
  metadata: metadataSchema.optional(),
  source_type: sourceType.nullable().optional(),
  captured_from: capturedFrom.nullable().optional(),
  confidence: confidence.optional(),
  session_id: sessionId.nullable().optional(),
  force: z.boolean().optional(),
}).strict().refine((b) => Object.keys(b).some((k) => k !== "force"), {
  message: "give at least one of content, metadata, source_type, captured_from, confidence, session_id",
});

/** The scope of a read: one project (or the active one), extra projects and namespaces. */
const readScope = {
  project: projectRef.optional(),
  includeProjects: includes("includeProjects", projectRef).optional(),
  namespace: namespace.optional(),
  includeNamespaces: includes("includeNamespaces", namespace).optional(),
};

export const searchBody = z.object({
  query: z.string().trim().min(1, "query must not be empty").max(L.maxQueryChars),
  ...readScope,
  limit: z.number().int().min(1).max(L.maxSearchLimit).optional(),
  /** hybrid (default), or one tier alone: keyword or vector. */
  mode: z.enum(["hybrid", "keyword", "vector"]).optional(),
  /** With each result, the ids and text of up to this many turns before and after it in its session. */
  context: z.number().int().min(0).max(L.maxSearchContext).optional(),
}).strict();

/** Comma-separated list in a query string. */
const csvList = (what: string, item: z.ZodType<string, string>) =>
  z.string().transform((s) => s.split(",").map((x) => x.trim()).filter(Boolean)).pipe(includes(what, item));

export const recentQuery = z.object({
  project: projectRef.optional(),
  includeProjects: csvList("includeProjects", projectRef).optional(),
  namespace: namespace.optional(),
  includeNamespaces: csvList("includeNamespaces", namespace).optional(),
  source_type: sourceType.optional(),
  limit: z.coerce.number().int().min(1).max(L.maxRecentLimit).optional(),
  cursor: z.string().max(200).optional(),
});

export const neighborsQuery = z.object({
  depth: z.coerce.number({ message: "depth must be 1, 2 or 3 (limit: neighborDepths)" }).refine(
    (d) => (L.neighborDepths as readonly number[]).includes(d),
    {
      message: "depth must be 1, 2 or 3 (limit: neighborDepths)",
    },
  ).default(1).describe("how many hops to walk: 1, 2 or 3"),
  project: projectRef.optional(),
  includeProjects: csvList("includeProjects", projectRef).optional(),
  namespace: namespace.optional(),
  includeNamespaces: csvList("includeNamespaces", namespace).optional(),
});

export const memoryIdParam = z.object({ id: z.string().describe("the entry's id") });

export const memoryEntry = z.object({
  id: z.string(),
  content: z.string(),
  content_hash: z.string().describe("SHA-256 hex of the trimmed content"),
  project: z.string().nullable().describe("the project's id; null for user-global memory"),
  namespace: z.string(),
  metadata: jsonValue,
  source_type: z.string().nullable(),
  captured_from: z.string().nullable(),
  confidence: z.number().min(0).max(1),
  hit_count: z.number().int(),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
  last_accessed_at: z.iso.datetime().nullable(),
  cold: z.boolean().describe("demoted by decay: out of keyword search until a hit promotes it"),
  user_id: z.string().describe("who wrote it (in a project, one of its members)"),
  session_id: z.string().nullable().describe("the conversation it belongs to, if any"),
}).meta({ id: "MemoryEntry" });

export const contextTurn = z.object({
  id: z.string(),
  content: z.string(),
  offset: z.number().int().describe("position relative to the result in its session: -1 before, 1 after"),
}).meta({ id: "ContextTurn" });

export const rememberResult = z.union([
  z.object({ id: z.string(), deduplicated: z.literal(true).optional() }),
  z.object({ id: z.null(), rejected: z.string().describe("why the worthiness gate refused it") }),
]).meta({ id: "RememberResult" });

export const searchResponse = z.object({
  results: z.array(memoryEntry.extend({
    score: z.number(),
    context: z.array(contextTurn).optional().describe(
      "with `context: n`: the turns around this one in its session (same user), in capture order",
    ),
  })),
  degraded: z.literal(true).optional().describe("set when a tier (e.g. the embedder) failed"),
}).meta({ id: "SearchResponse" });

export const recentResponse = z.object({
  entries: z.array(memoryEntry),
  nextCursor: z.string().nullable().describe("pass as `cursor` for the next page; null on the last"),
});

export const neighborsResponse = z.object({
  root: z.string(),
  depth: z.number().int(),
  nodes: z.array(memoryEntry.extend({ depth: z.number().int() })),
  edges: z.array(z.object({ from: z.string(), to: z.string(), relation: z.string(), weight: z.number() })),
});

export const deletedResponse = z.object({ deleted: z.literal(true) }).meta({ id: "Deleted" });

export type RememberBody = z.output<typeof rememberBody>;
export type UpdateBody = z.output<typeof updateBody>;
export type SearchBody = z.output<typeof searchBody>;
export type RecentQuery = z.output<typeof recentQuery>;
export type NeighborsQuery = z.output<typeof neighborsQuery>;
export type ReadScopeInput = Pick<
  SearchBody,
  "project" | "includeProjects" | "namespace" | "includeNamespaces"
>;
