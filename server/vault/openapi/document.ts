/** The vault's OpenAPI document: internal/openapi's builder with the vault's credentials. */
import { errorResponses, openApiDocument } from "../../../internal/openapi/mod.ts";
import type { Access, RouteSpec } from "./route_spec.ts";

const SCHEMES: Record<Exclude<Access, "public">, string[]> = {
  caller: ["sessionCookie", "apiKey"],
  session: ["sessionCookie"],
  admin: ["sessionCookie"],
  apiKey: ["apiKey"],
};

export function vaultDocument(
  specs: readonly RouteSpec[],
  options: { version: string; baseUrl: string; sessionCookie: string },
) {
  return openApiDocument(specs, {
    title: "vault",
    description: "Multi-user note vault: identity, invites, API keys and administration. " +
      "Cookie-authenticated writes need the `X-Requested-With` header (CSRF).",
    version: options.version,
    baseUrl: options.baseUrl,
    securitySchemes: {
      sessionCookie: {
        type: "apiKey",
        in: "cookie",
        name: options.sessionCookie,
        description: "The session cookie (HttpOnly), set by POST /api/auth/sign-in/email.",
      },
      apiKey: {
        type: "http",
        scheme: "bearer",
        description: "`Authorization: Bearer vault_<key>`: an API key (POST /api/api-keys).",
      },
    },
    securityOf: (
      access,
    ) => (access === "public" ? undefined : SCHEMES[access].map((name) => ({ [name]: [] }))),
    impliedErrors: (access, hasInput) => [
      ...(hasInput ? [400] : []),
      ...(access === "public" ? [] : [401]),
      ...(access === "session" || access === "admin" || access === "apiKey" ? [403] : []),
      ...(access === "caller" || access === "apiKey" ? [429] : []),
      500,
    ],
    errorResponses: errorResponses({
      403: "The credential is of the wrong kind or role, a read-only key tried to write, or a cookie " +
        "write came without `X-Requested-With` or from another origin.",
      413: "The body is over VAULT_MAX_BODY_BYTES.",
      429:
        "An API key went over its request budget (a token bucket: VAULT_API_KEY_BURST at once, refilled at " +
        "VAULT_API_KEY_RATE_PER_MINUTE); `Retry-After` says in how many seconds to try again. On /api/mcp the " +
        "body is a JSON-RPC error saying the same.",
    }),
  });
}
