/**
 *   GET  /api/auth/registration   whether sign-up is open or needs an invite code
 *   POST /api/auth/sign-up/email  create an account (claiming an invite) and sign in
 *
 * Served by the vault itself, not the identity library: the invite claim and the user insert must
 * share one transaction (identity/registration.ts).
 */
import { Hono } from "hono";
import type { Kysely } from "kysely";
import { z } from "zod";
import { writeAudit } from "../../../internal/audit/mod.ts";
import type { Auth } from "../../../internal/auth/mod.ts";
import { type TokenBuckets, tooManyRequests } from "../../../internal/http/mod.ts";
import type { Database } from "../../../internal/db/mod.ts";
import type { VaultEnv } from "../env.ts";
import { register, signUpBody } from "../identity/registration.ts";
import { getRegistrationMode, registrationMode } from "../identity/settings.ts";
import { defineRoute, mountRoute } from "../openapi/route_spec.ts";
import type { VaultDatabase } from "../store/db.ts";

export const signUpApi = {
  registration: defineRoute({
    method: "get",
    path: "/api/auth/registration",
    operationId: "registrationMode",
    tag: "auth",
    access: "public",
    summary: "Whether sign-up needs an invite code",
    responses: {
      200: {
        description: "the registration mode; a vault with no user yet takes its first sign-up without a code",
        schema: z.object({ mode: registrationMode, firstUser: z.boolean() }),
      },
    },
  }),
  signUp: defineRoute({
    method: "post",
    path: "/api/auth/sign-up/email",
    operationId: "signUpEmail",
    tag: "auth",
    access: "public",
    summary: "Create an account with email and password, and sign in",
    description: "The first account becomes the admin and needs no invite. After that an invite code is " +
      "required unless an admin opened registration. The code is claimed in the same transaction as the " +
      "account: of concurrent sign-ups with one code exactly one succeeds, and a failed sign-up leaves " +
      "the code unused. At most 10 attempts per email per 15 minutes.",
    body: signUpBody,
    responses: {
      201: {
        description: "created and signed in; the session cookie is set",
        schema: z.object({
          user: z.object({
            id: z.string(),
            email: z.string(),
            name: z.string(),
            role: z.enum(["admin", "user"]),
          }),
        }),
      },
    },
    errors: [403, 409, 429],
  }),
};

export interface SignUpRoutesDeps {
  auth: Auth;
  database: Database<VaultDatabase>;
  limiter: TokenBuckets;
}

export function signUpRoutes({ auth, database, limiter }: SignUpRoutesDeps): Hono<VaultEnv> {
  const app = new Hono<VaultEnv>();
  const db = database.db as Kysely<VaultDatabase>;
  mountRoute(app, signUpApi.registration, async (c) => {
    const firstUser = !(await db.selectFrom("user").select("id").limit(1).executeTakeFirst());
    return c.json({ mode: await getRegistrationMode(db), firstUser });
  });
  mountRoute(app, signUpApi.signUp, async (c, { body }) => {
    const verdict = limiter.take(`sign-up:${body.email.trim().toLowerCase()}`);
    if (!verdict.allowed) return tooManyRequests(c, verdict.retryAfterSeconds);
    const user = await register(database, body);
    await writeAudit(db, {
      actorId: user.userId,
      action: "user.register",
      target: user.userId,
      requestId: c.get("requestId"),
      metadata: { role: user.role, invite: body.inviteCode !== undefined },
    });
    // Sign the new account in through the library, so the session is its own, cookie included.
    const signedIn = await auth.api.signInEmail({
      body: { email: user.email, password: body.password },
      headers: c.req.raw.headers,
      asResponse: true,
    });
    for (const cookie of signedIn.headers.getSetCookie()) c.header("Set-Cookie", cookie, { append: true });
    await signedIn.body?.cancel();
    return c.json({ user: { id: user.userId, email: user.email, name: user.name, role: user.role } }, 201);
  });
  return app;
}
