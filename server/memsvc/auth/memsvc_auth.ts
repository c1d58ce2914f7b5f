import { type AuthOptions, createAuth } from "../../../internal/auth/mod.ts";

/** The identity library with memsvc's names; user ids must never look like project ids (p_). */
export function createMemsvcAuth(
  options: Omit<AuthOptions, "appName" | "cookiePrefix" | "reservedUserIdPrefix">,
) {
  return createAuth({
    ...options,
    appName: "memsvc",
    cookiePrefix: "memsvc",
    reservedUserIdPrefix: { prefix: "p_", reason: "projects" },
  });
}
