/**
 * What every operation in memsvc's /openapi.json shares: the standard error responses
 * (internal/openapi) in memsvc's words, and the security schemes of each MEMSVC_AUTH_MODE with the
 * schemes each kind of access accepts.
 */
import { errorResponses } from "../../../internal/openapi/mod.ts";
import type { MemsvcConfig } from "../config.ts";
import type { Access } from "./route_spec.ts";

type AuthMode = MemsvcConfig["MEMSVC_AUTH_MODE"];

/** The shared error responses (components/responses), by status, in memsvc's words. */
export const ERROR_RESPONSES = errorResponses({
  403: "The credential is of the wrong kind or role, or the caller is not a member of the project.",
  404: "The entry, token or project does not exist for the caller ('no such project').",
  413: "The body is over MEMSVC_MAX_BODY_BYTES.",
});

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
