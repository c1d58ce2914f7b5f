/**
 * What every operation in /openapi.json shares: the error bodies of the contract (section 7) as
 * zod schemas, the standard error responses built on them, and the security schemes of each
 * MEMSVC_AUTH_MODE with the schemes each kind of access accepts.
 */
import { z } from "zod";
import type { MemsvcConfig } from "../config.ts";
import type { Access } from "./route_spec.ts";

type AuthMode = MemsvcConfig["MEMSVC_AUTH_MODE"];

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

/** The shared error responses (components/responses), by status. */
export const ERROR_RESPONSES: Record<number, { name: string; description: string; schema: z.ZodType }> = {
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
  403: {
    name: "Forbidden",
    description: "The credential is of the wrong kind or role, or the caller is not a member of the project.",
    schema: errorBody,
  },
  404: {
    name: "NotFound",
    description: "The entry, token or project does not exist for the caller ('no such project').",
    schema: errorBody,
  },
  409: { name: "Conflict", description: "The request conflicts with the current state.", schema: errorBody },
  413: { name: "PayloadTooLarge", description: "The body is over MEMSVC_MAX_BODY_BYTES.", schema: errorBody },
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

/** The security schemes of a mode (components/securitySchemes). */
export function securitySchemes(mode: AuthMode, sessionCookie: string): Record<string, object> {
  if (mode === "none") return {};
  if (mode === "bearer") {
    return {
      sharedBearer: {
        type: "http",
        scheme: "bearer",
        description:
          "MEMSVC_AUTH_MODE=bearer: the shared MEMSVC_AUTH_TOKEN; every holder acts as the operator.",
      },
    };
  }
  return {
    sessionCookie: {
      type: "apiKey",
      in: "cookie",
      name: sessionCookie,
      description: "The dashboard session cookie (HttpOnly), set by POST /api/auth/sign-in/email.",
    },
    sessionBearer: {
      type: "http",
      scheme: "bearer",
      description: "`Authorization: Bearer ns_<session token>`: the session token of a sign-in, for scripts.",
    },
    apiToken: {
      type: "http",
      scheme: "bearer",
      description: "`Authorization: Bearer nm_<API token>`: a user API token (POST /v1/me/tokens).",
    },
  };
}

/** The schemes (alternatives) an access kind accepts in a mode; undefined for public operations. */
export function securityOf(access: Access, mode: AuthMode): Record<string, string[]>[] | undefined {
  if (access === "public" || mode === "none") return undefined;
  if (mode === "bearer") return [{ sharedBearer: [] }];
  const schemes: Record<Exclude<Access, "public">, string[]> = {
    caller: ["apiToken", "sessionBearer", "sessionCookie"],
    session: ["sessionBearer", "sessionCookie"],
    admin: ["sessionBearer", "sessionCookie"],
    "api-token": ["apiToken"],
    bearer: ["apiToken", "sessionBearer"],
  };
  return schemes[access].map((name) => ({ [name]: [] }));
}

/** The error statuses an operation has without saying so: from its inputs, its guard, and 500. */
export function impliedErrors(access: Access, hasInput: boolean, mode: AuthMode): number[] {
  const statuses = hasInput ? [400] : [];
  if (access !== "public" && mode !== "none") statuses.push(401);
  if (access !== "public" && access !== "caller" && mode === "user") statuses.push(403);
  return [...statuses, 500];
}
