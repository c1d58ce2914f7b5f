/**
 * The description of /api/auth for /openapi.json: one operation per allowlisted route (allowlist.ts),
 * with the request schemas the identity library itself validates with (its endpoints carry zod
 * schemas), so neither the paths nor the fields can drift from what is served.
 */
import { z } from "zod";
import { lastAdminBody } from "../openapi/components.ts";
import type { RouteSpec } from "../openapi/route_spec.ts";
import { ADMIN_ROUTES, type AuthRoute, SELF_SERVICE_ROUTES } from "./allowlist.ts";
import type { Auth } from "./better_auth.ts";
import { demotedUser } from "./last_admin.ts";

/** The library's own error body (its validation and credential errors). */
export const authLibraryError = z.object({
  message: z.string(),
  code: z.string().optional(),
}).meta({ id: "AuthLibraryError" });

const signInResponse = z.looseObject({
  token: z.string().describe("the session token: send it as `Authorization: Bearer ns_<token>`"),
  user: z.looseObject({ id: z.string(), email: z.string() }),
});

/** Routes whose body can take admin rights away, and so may answer 400 LAST_ADMIN_PROTECTED. */
const CAN_DEMOTE = new Set<AuthRoute>(
  ADMIN_ROUTES.filter((route) =>
    demotedUser({ route, body: { userId: "u", role: "user", data: { role: "user" } } }) !== undefined
  ),
);

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

/** One spec per allowlisted /api/auth route. */
export function authApi(auth: Auth): RouteSpec[] {
  return [...SELF_SERVICE_ROUTES, ...ADMIN_ROUTES].map((route): RouteSpec => {
    const [method, path] = route.split(" ") as [string, string];
    const endpoint = endpointFor(auth, method, path);
    const admin = (ADMIN_ROUTES as readonly string[]).includes(route);
    const signIn = route === "POST /sign-in/email";
    const body = objectSchema(endpoint.options?.body);
    const query = objectSchema(endpoint.options?.query);
    const rejected = CAN_DEMOTE.has(route)
      ? {
        description: "rejected by the identity library, or LAST_ADMIN_PROTECTED: it would leave no admin",
        schema: z.union([authLibraryError, lastAdminBody]),
      }
      : { description: "rejected by the identity library", schema: authLibraryError };
    return {
      method: method.toLowerCase() as RouteSpec["method"],
      path: `/api/auth${path}`,
      operationId: `auth${
        path.split(/[/-]/).filter(Boolean).map((w) => w[0]!.toUpperCase() + w.slice(1)).join("")
      }`,
      tag: admin ? "auth-admin" : "auth",
      access: signIn ? "public" : admin ? "admin" : "session",
      // The library's own one-line description, else the path in words.
      summary: signIn
        ? "Sign in with email and password: sets the session cookie"
        : `${admin ? "Admin: " : ""}${
          endpoint.options?.metadata?.openapi?.description ?? path.split("/").pop()!.replaceAll("-", " ")
        }`,
      description: "Served by the identity library behind memsvc's allowlist." +
        (signIn ? " At most 10 attempts per email per 15 minutes." : ""),
      ...(body && method !== "GET" ? { body } : {}),
      ...(query && method === "GET" ? { query } : {}),
      responses: {
        200: signIn
          ? { description: "signed in; the session cookie is set", schema: signInResponse }
          : { description: "the identity library's answer", schema: z.looseObject({}) },
        // The library validates the input and answers 400 in its own shape.
        ...(body || query ? { 400: rejected } : {}),
      } as RouteSpec["responses"],
      errors: signIn || route.endsWith("-password") ? [401, 429] : [],
    };
  });
}
