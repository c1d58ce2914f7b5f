/**
 * The OpenAPI description of the identity library's routes: one operation per allowlisted route
 * (allowlist.ts), with the request schemas the library itself validates with (its endpoints carry
 * zod schemas), so neither the paths nor the fields can drift from what is served.
 */
import { z } from "zod";
import { lastAdminBody, type RouteSpec } from "../openapi/mod.ts";
import type { AuthRouteAllowlist } from "./allowlist.ts";
import type { Auth } from "./better_auth.ts";
import { demotedUser } from "./last_admin.ts";

/** The library's own error body (its validation and credential errors). */
export const authLibraryError = z.object({
  message: z.string(),
  code: z.string().optional(),
}).meta({ id: "AuthLibraryError" });

const canDemote = (route: string) =>
  demotedUser({ route, body: { userId: "u", role: "user", data: { role: "user" } } }) !== undefined;

export interface AuthApiOptions {
  allowlist: AuthRouteAllowlist;
  /** The tool's name, for "Served by the identity library behind <tool>'s allowlist." */
  tool: string;
  /** What the sign-in answer's `token` is for, e.g. "send it as `Authorization: Bearer ns_<token>`". */
  tokenHint: string;
  /** Where the library is mounted. Default /api/auth. */
  prefix?: string;
}

/** The shape of an endpoint in `auth.api` that this module reads. */
interface Endpoint {
  path?: string;
  options?: {
    method?: string | string[];
    body?: unknown;
    query?: unknown;
    metadata?: { openapi?: { description?: string } };
  };
}

/** The allowlisted endpoint of the library for `method` and `path`, or an error naming it. */
function endpointFor(auth: Auth, method: string, path: string): Endpoint {
  for (const endpoint of Object.values(auth.api as Record<string, Endpoint>)) {
    const methods = [endpoint?.options?.method ?? []].flat();
    if (endpoint?.path === path && methods.includes(method)) return endpoint;
  }
  throw new Error(`allowlisted route ${method} ${path} is not an endpoint of the identity library`);
}

function objectSchema(value: unknown): z.ZodObject | undefined {
  if (value instanceof z.ZodOptional) return objectSchema(value.unwrap());
  return value instanceof z.ZodObject ? value : undefined;
}

type AuthAccess = "public" | "session" | "admin";

/** One spec per allowlisted route. */
export function authApi(auth: Auth, options: AuthApiOptions): RouteSpec<AuthAccess>[] {
  const { allowlist, prefix = "/api/auth" } = options;
  const signInResponse = z.looseObject({
    token: z.string().describe(`the session token: ${options.tokenHint}`),
    user: z.looseObject({ id: z.string(), email: z.string() }),
  });
  return [...allowlist.selfService, ...allowlist.admin].map((route): RouteSpec<AuthAccess> => {
    const [method, path] = route.split(" ") as [string, string];
    const endpoint = endpointFor(auth, method, path);
    const admin = allowlist.isAdmin(route);
    const signIn = route === "POST /sign-in/email";
    // Starting an OAuth sign-in and the provider's redirect back need no session.
    const open = route === "POST /sign-in/social" || route.startsWith("GET /callback/") ||
      route === "GET /passkey/generate-authenticate-options" ||
      route === "POST /passkey/verify-authentication";
    const body = objectSchema(endpoint.options?.body);
    const query = objectSchema(endpoint.options?.query);
    const rejected = admin && canDemote(route)
      ? {
        description: "rejected by the identity library, or LAST_ADMIN_PROTECTED: it would leave no admin",
        schema: z.union([authLibraryError, lastAdminBody]),
      }
      : { description: "rejected by the identity library", schema: authLibraryError };
    return {
      method: method.toLowerCase() as RouteSpec["method"],
      path: `${prefix}${path}`,
      operationId: `auth${
        path.split(/[/-]/).filter(Boolean).map((w) => w[0]!.toUpperCase() + w.slice(1)).join("")
      }`,
      tag: admin ? "auth-admin" : "auth",
      access: signIn || open ? "public" : admin ? "admin" : "session",
      ...(path.includes("/:id") ? { params: z.object({ id: z.string() }) } : {}),
      // The library's own one-line description, else the path in words.
      summary: signIn
        ? "Sign in with email and password: sets the session cookie"
        : `${admin ? "Admin: " : ""}${
          endpoint.options?.metadata?.openapi?.description ?? path.split("/").pop()!.replaceAll("-", " ")
        }`,
      description: `Served by the identity library behind ${options.tool}'s allowlist.` +
        (signIn ? " At most 10 attempts per email per 15 minutes." : ""),
      ...(body && method !== "GET" ? { body } : {}),
      ...(query && method === "GET" ? { query } : {}),
      responses: {
        200: signIn
          ? { description: "signed in; the session cookie is set", schema: signInResponse }
          : { description: "the identity library's answer", schema: z.looseObject({}) },
        // The library validates the input and answers 400 in its own shape.
        ...(body || query ? { 400: rejected } : {}),
      } as RouteSpec<AuthAccess>["responses"],
      errors: signIn || route.endsWith("-password") ? [401, 429] : [],
    };
  });
}
