/**
 * The identity-library paths a tool passes through, in one place per tool. Anything else under the
 * library's mount answers 404 (and is logged), so a library upgrade that adds endpoints exposes
 * nothing until the tool lists it.
 *
 * @example
 * const allowlist = authRouteAllowlist({ selfService: ["POST /sign-in/email"], admin: [] });
 * allowlist.allowed("post", "/sign-in/email/"); // "POST /sign-in/email"
 *
 * A route may come with a body schema, checked before the library sees the request (400 with issues):
 * the library answers some malformed bodies with an empty 500.
 */
import { z } from "zod";
import { recordId } from "../http/mod.ts";

/** A user's display name, the same wherever one is set (sign-up, update-user, an admin's create-user). */
export const userName = z.string().trim().min(1, "a name is required").max(100);

/** Bodies of library routes that the tools check themselves. */
export const LIBRARY_BODIES: Readonly<Record<string, z.ZodType>> = {
  "POST /update-user": z.strictObject({
    name: userName.optional(),
    image: z.string().max(2048).nullable().optional(),
  }),
  // Only the name is the tools' business; the library checks the rest.
  "POST /admin/create-user": z.looseObject({ name: userName }),
  "POST /passkey/delete-passkey": z.strictObject({ id: recordId }),
};

/** What a browser app and scripts need for their own account and session; public sign-up is absent. */
export const SELF_SERVICE_ROUTES = [
  "POST /sign-in/email",
  "POST /sign-out",
  "GET /get-session",
  "GET /list-sessions",
  "POST /revoke-session",
  "POST /revoke-other-sessions",
  "POST /change-password",
  "POST /update-user",
] as const;

export interface AuthRouteAllowlist {
  /** Self-service routes (own account and session), `METHOD /path` below the mount. */
  readonly selfService: readonly string[];
  /** The library's admin routes the tool exposes. */
  readonly admin: readonly string[];
  /** The allowlisted route for a method and a path below the mount, or undefined. */
  allowed(method: string, subpath: string): string | undefined;
  /** The schema a route's JSON body must meet before the library sees it, if the tools check it. */
  bodyOf(route: string): z.ZodType | undefined;
  isAdmin(route: string): boolean;
}

export function authRouteAllowlist(
  routes: { selfService: readonly string[]; admin: readonly string[] },
): AuthRouteAllowlist {
  const all = new Set([...routes.selfService, ...routes.admin]);
  const admin = new Set(routes.admin);
  return {
    selfService: routes.selfService,
    admin: routes.admin,
    allowed(method, subpath) {
      const key = `${method.toUpperCase()} ${subpath.replace(/\/+$/, "")}`;
      if (all.has(key)) return key;
      // A listed `:param` segment (the OAuth callback, `GET /callback/:id`) matches one plain segment.
      const [verb, path] = key.split(" ") as [string, string];
      const segments = path.split("/");
      for (const route of all) {
        if (!route.includes(":") || !route.startsWith(`${verb} `)) continue;
        const pattern = route.slice(verb.length + 1).split("/");
        if (
          pattern.length === segments.length &&
          pattern.every((p, i) =>
            p.startsWith(":") ? /^[A-Za-z0-9_-]+$/.test(segments[i]!) : p === segments[i]
          )
        ) return route;
      }
      return undefined;
    },
    isAdmin: (route) => admin.has(route),
    bodyOf: (route) => LIBRARY_BODIES[route],
  };
}
