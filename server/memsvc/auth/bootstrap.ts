/**
 * The first admin. When no admin exists, one is created from MEMSVC_BOOTSTRAP_ADMIN_EMAIL and
 * MEMSVC_BOOTSTRAP_ADMIN_PASSWORD; either way the password is then removed from the process
 * environment so nothing started later (or a crash dump) can read it. Idempotent: with an admin
 * present, nothing changes, whatever the variables say.
 */
import { type Database, withAdvisoryLock } from "../../../internal/db/mod.ts";
import type { Logger } from "../../../internal/log/mod.ts";
import type { MemsvcDatabase } from "../store/db.ts";
import type { Auth } from "./better_auth.ts";

export interface BootstrapInput {
  email?: string;
  password?: string;
}

export async function bootstrapAdmin(
  auth: Auth,
  database: Database<MemsvcDatabase>,
  input: BootstrapInput,
  log: Logger,
): Promise<"created" | "exists" | "skipped"> {
  try {
    // Serialised so two servers starting on one PostgreSQL create one admin, not a conflict.
    return await withAdvisoryLock(
      database,
      "memsvc:bootstrap",
      () => createIfNone(auth, database, input, log),
    );
  } finally {
    delete process.env.MEMSVC_BOOTSTRAP_ADMIN_PASSWORD;
  }
}

async function createIfNone(
  auth: Auth,
  { db }: Database<MemsvcDatabase>,
  input: BootstrapInput,
  log: Logger,
): Promise<"created" | "exists" | "skipped"> {
  const admin = await db.selectFrom("user").select("id").where("role", "=", "admin").executeTakeFirst();
  if (admin) return "exists";
  if (!input.email || !input.password) {
    log.warn(
      "no admin exists: set MEMSVC_BOOTSTRAP_ADMIN_EMAIL and MEMSVC_BOOTSTRAP_ADMIN_PASSWORD to create the first one",
    );
    return "skipped";
  }
  await auth.api.createUser({
    body: { email: input.email, password: input.password, name: input.email.split("@")[0]!, role: "admin" },
  });
  log.info("bootstrap admin created", { email: input.email });
  return "created";
}
