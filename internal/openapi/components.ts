/**
 * What every tool's operations share: the error bodies every server answers with
 * (internal/http/errors.ts, the last-admin rule, rate limits) as zod schemas, and the standard
 * error responses built on them. A tool may reword a response's description for its own API.
 */
import { z } from "zod";

export const errorBody = z.object({
  error: z.string().describe("what went wrong, for a human"),
  code: z.string().optional().describe("a machine-readable code, e.g. LAST_ADMIN_PROTECTED"),
}).meta({ id: "Error" });

export const validationErrorBody = z.object({
  error: z.literal("invalid request"),
  issues: z.array(z.object({
    path: z.array(z.union([z.string(), z.number()])).describe('where in the input, e.g. ["metadata"]'),
    message: z.string(),
    code: z.string().describe("zod's issue code, or invalid_json"),
  })),
}).meta({ id: "ValidationError" });

export const lastAdminBody = z.object({
  error: z.string(),
  code: z.literal("LAST_ADMIN_PROTECTED"),
}).meta({ id: "LastAdminProtected" });

export const tooManyRequestsBody = z.object({
  error: z.string(),
  retryAfterSeconds: z.number().int().optional(),
}).meta({ id: "TooManyRequests" });

export const internalErrorBody = z.object({ error: z.literal("internal server error") })
  .meta({ id: "InternalError" });

export interface ErrorResponse {
  /** The name under components/responses. */
  name: string;
  description: string;
  schema: z.ZodType;
}

const DEFAULTS: Record<number, ErrorResponse> = {
  400: {
    name: "BadRequest",
    description: "The request failed schema validation (or its body is not JSON); `issues` says where.",
    schema: validationErrorBody,
  },
  401: {
    name: "Unauthorized",
    description: "No credential, or a revoked or unknown one.",
    schema: errorBody,
  },
  403: { name: "Forbidden", description: "The credential is of the wrong kind or role.", schema: errorBody },
  404: {
    name: "NotFound",
    description: "The thing asked for does not exist for the caller.",
    schema: errorBody,
  },
  409: { name: "Conflict", description: "The request conflicts with the current state.", schema: errorBody },
  413: { name: "PayloadTooLarge", description: "The body is over the size limit.", schema: errorBody },
  429: {
    name: "TooManyRequests",
    description: "A rate or session limit was hit; `Retry-After` says when to try again where it applies.",
    schema: tooManyRequestsBody,
  },
  500: {
    name: "InternalError",
    description: "An unexpected failure; the detail is only in the server log, under the request id.",
    schema: internalErrorBody,
  },
};

/** The shared error responses by status, with a tool's own wording where it gives one. */
export function errorResponses(descriptions: Record<number, string> = {}): Record<number, ErrorResponse> {
  return Object.fromEntries(
    Object.entries(DEFAULTS).map((
      [status, r],
    ) => [status, { ...r, description: descriptions[+status] ?? r.description }]),
  );
}
