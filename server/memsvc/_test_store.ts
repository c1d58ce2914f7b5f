/**
 * Test helper: a migrated memsvc store on a fresh PGlite directory, and user rows written the way
 * the identity library writes them. Open one store per test file; it takes a few seconds.
 */
import type { Kysely } from "kysely";
import type { Caller } from "../../internal/auth/mod.ts";
import { freshDataDir, removeDataDirs } from "../../internal/db/_test_data_dir.ts";
import { contentHash, newEntryId } from "./memory/entry.ts";
import type { VectorBacklog } from "./memory/vector_backlog.ts";
import { type MemsvcDatabase, openMemsvcStore } from "./store/db.ts";

export interface TestStore {
  db: Kysely<MemsvcDatabase>;
  close(): Promise<void>;
}

export async function openTestStore(): Promise<TestStore> {
  const { database } = await openMemsvcStore({ dataDir: await freshDataDir() });
  return {
    db: database.db,
    close: async () => {
      await database.close();
      await removeDataDirs();
    },
  };
}

export interface TestUser {
  id: string;
  email?: string;
  role?: "admin" | "user";
  banned?: boolean;
  banExpires?: Date | null;
}

/** A user's caller signed in with an API token, as `insertUser` writes the user (`<id>@example.test`). */
export const apiTokenCaller = (userId: string): Caller => ({
  userId,
  email: `${userId}@example.test`,
  role: "user",
  via: "api-token",
  tokenHash: "t",
});

/** Inserts a user row (email defaults to `<id>@example.test`, role to "user"). */
export async function insertUser(db: Kysely<MemsvcDatabase>, user: TestUser): Promise<void> {
  await db.insertInto("user").values({
    id: user.id,
    name: user.id,
    email: user.email ?? `${user.id}@example.test`,
    emailVerified: false,
    image: null,
    role: user.role ?? "user",
    banned: user.banned ?? null,
    banReason: null,
    banExpires: user.banExpires ?? null,
  }).execute();
}

/** Inserts an entry of `userId` (default namespace, no project) with `content`, and returns its id. */
export async function insertEntry(
  db: Kysely<MemsvcDatabase>,
  userId: string,
  content: string,
): Promise<string> {
  const id = newEntryId();
  await db.insertInto("memory_entries").values({
    id,
    user_id: userId,
    project_id: null,
    namespace: "default",
    content,
    content_hash: await contentHash(content),
  }).execute();
  return id;
}

/** Has `backlog` embed entries `ids` (their `contents`, in `partitionOf(i)`) and waits until it stored them. */
export async function embedEntries(
  backlog: VectorBacklog,
  ids: readonly string[],
  contents: readonly string[],
  partitionOf: (i: number) => string,
): Promise<void> {
  const hashes = await Promise.all(contents.map(contentHash));
  backlog.add(
    ids.map((id, i) => ({ id, content: contents[i]!, contentHash: hashes[i]!, partition: partitionOf(i) })),
  );
  await backlog.settled();
}
