/**
 * The identity library's tables (better-auth with its admin and bearer plugins: user, session,
 * account, verification), in the column names it expects. Generated from better-auth's schema for
 * 1.7 and created by each tool's own migration, so a binary never runs the library's migrator.
 */
import { type Generated, type Kysely, sql } from "kysely";

/** better-auth's user table (admin plugin columns included); the library writes it, we read it. */
export interface UserTable {
  id: string;
  name: string;
  email: string;
  emailVerified: boolean;
  image: string | null;
  createdAt: Generated<Date>;
  updatedAt: Generated<Date>;
  role: string | null;
  banned: boolean | null;
  banReason: string | null;
  banExpires: Date | null;
}

/** The library's account row: `password` holds the hash for providerId "credential". */
export interface AccountTable {
  id: string;
  accountId: string;
  providerId: string;
  userId: string;
  password: string | null;
  createdAt: Generated<Date>;
  updatedAt: Date;
}

export interface SessionTable {
  id: string;
  token: string;
  userId: string;
  expiresAt: Date;
  createdAt: Generated<Date>;
  updatedAt: Date;
}

/** The identity tables this code reads or writes itself; a tool's table interface extends it. */
export interface IdentityTables {
  user: UserTable;
  account: AccountTable;
  session: SessionTable;
}

/** Creates user, session, account and verification with their indexes (memsvc's 0002 DDL). */
// deno-lint-ignore no-explicit-any
export async function createIdentityTables(db: Kysely<any>): Promise<void> {
  const now = sql`CURRENT_TIMESTAMP`;
  await db.schema.createTable("user")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("email", "text", (c) => c.notNull().unique())
    .addColumn("emailVerified", "boolean", (c) => c.notNull())
    .addColumn("image", "text")
    .addColumn("createdAt", "timestamptz", (c) => c.notNull().defaultTo(now))
    .addColumn("updatedAt", "timestamptz", (c) => c.notNull().defaultTo(now))
    .addColumn("role", "text")
    .addColumn("banned", "boolean")
    .addColumn("banReason", "text")
    .addColumn("banExpires", "timestamptz")
    .execute();
  await db.schema.createTable("session")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("expiresAt", "timestamptz", (c) => c.notNull())
    .addColumn("token", "text", (c) => c.notNull().unique())
    .addColumn("createdAt", "timestamptz", (c) => c.notNull().defaultTo(now))
    .addColumn("updatedAt", "timestamptz", (c) => c.notNull())
    .addColumn("ipAddress", "text")
    .addColumn("userAgent", "text")
    .addColumn("userId", "text", (c) => c.notNull().references("user.id").onDelete("cascade"))
    .addColumn("impersonatedBy", "text")
    .execute();
  await db.schema.createTable("account")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("accountId", "text", (c) => c.notNull())
    .addColumn("providerId", "text", (c) => c.notNull())
    .addColumn("userId", "text", (c) => c.notNull().references("user.id").onDelete("cascade"))
    .addColumn("accessToken", "text")
    .addColumn("refreshToken", "text")
    .addColumn("idToken", "text")
    .addColumn("accessTokenExpiresAt", "timestamptz")
    .addColumn("refreshTokenExpiresAt", "timestamptz")
    .addColumn("scope", "text")
    .addColumn("password", "text")
    .addColumn("createdAt", "timestamptz", (c) => c.notNull().defaultTo(now))
    .addColumn("updatedAt", "timestamptz", (c) => c.notNull())
    .execute();
  await db.schema.createTable("verification")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("identifier", "text", (c) => c.notNull())
    .addColumn("value", "text", (c) => c.notNull())
    .addColumn("expiresAt", "timestamptz", (c) => c.notNull())
    .addColumn("createdAt", "timestamptz", (c) => c.notNull().defaultTo(now))
    .addColumn("updatedAt", "timestamptz", (c) => c.notNull().defaultTo(now))
    .execute();
  await db.schema.createIndex("session_userId_idx").on("session").column("userId").execute();
  await db.schema.createIndex("account_userId_idx").on("account").column("userId").execute();
  await db.schema.createIndex("verification_identifier_idx").on("verification").column("identifier")
    .execute();
}
