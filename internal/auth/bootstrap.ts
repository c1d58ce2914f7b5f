/**
 * The first admin. When no admin exists, one is created from the tool's bootstrap variables
 * (e.g. MEMSVC_BOOTSTRAP_ADMIN_EMAIL and MEMSVC_BOOTSTRAP_ADMIN_PASSWORD); either way the password
 * variable is then removed from the process environment so nothing started later (or a crash
 * dump) can read it. Idempotent: with an admin present, nothing changes, whatever the variables say.
 */
import type { Kysely } from "kysely";
import { type Database, withAdvisoryLock } from "../db/mod.ts";
import type { Logger } from "../log/mod.ts";
import type { Auth } from "./better_auth.ts";
import type { IdentityTables } from "./identity_tables.ts";

export interface BootstrapInput {
  email?: string;
  password?: string;
  /** The variables they come from, named in the hint and scrubbed (the password) afterwards. */
  emailVariable: string;
  passwordVariable: string;
  /** The cluster-wide lock name, e.g. "memsvc:bootstrap". */
  lock: string;
}

export async function bootstrapAdmin<DB>(
  auth: Auth,
  database: Database<DB>,
  input: BootstrapInput,
  log: Logger,
): Promise<"created" | "exists" | "skipped"> {
  try {
    // Serialised so two servers starting on one PostgreSQL create one admin, not a conflict.
    return await withAdvisoryLock(
      database,
      input.lock,
      () => createIfNone(auth, database.db as unknown as Kysely<IdentityTables>, input, log),
    );
  } finally {
    delete process.env[input.passwordVariable];
  }
}

async function createIfNone(
  auth: Auth,
  db: Kysely<IdentityTables>,
  input: BootstrapInput,
  log: Logger,
): Promise<"created" | "exists" | "skipped"> {
  const admin = await db.selectFrom("user").select("id").where("role", "=", "admin").executeTakeFirst();
  if (admin) return "exists";
  if (!input.email || !input.password) {
    log.warn(
      `no admin exists: set ${input.emailVariable} and ${input.passwordVariable} to create the first one`,
    );
    return "skipped";
  }
  await auth.api.createUser({
    body: { email: input.email, password: input.password, name: input.email.split("@")[0]!, role: "admin" },
  });
  log.info("bootstrap admin created", { email: input.email });
  return "created";
}
