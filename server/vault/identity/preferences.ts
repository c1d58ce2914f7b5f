/**
 * A user's web-app preferences: one small JSON document per user, typed key by key so a typo or a
 * stale client is refused (400 with the issues) instead of stored and silently ignored. The web app
 * keeps a copy in localStorage only to start offline; this is the record.
 */
import type { Kysely } from "kysely";
import { z } from "zod";
import type { VaultDatabase } from "../store/db.ts";

/** At most this many bytes of JSON per user: preferences, not a place to keep notes. */
export const MAX_PREFERENCES_BYTES = 16 * 1024;

export const preferencesSchema = z.object({
  /** The sidebar's panels in order, each shown or hidden (ids are open: plugins add panels). */
  sidebar: z.array(
    z.object({
      id: z.string().regex(/^[a-z0-9][a-z0-9._:-]{0,99}$/, "a panel id: lowercase letters, digits, . _ : -"),
      visible: z.boolean(),
    }).strict(),
  ).max(200).optional(),
  /** Editor: line numbers in the gutter. */
  lineNumbers: z.boolean().optional(),
  /** Editor: the rendered preview beside the text. */
  preview: z.boolean().optional(),
  /** Editor: notes open for live collaborative editing (false: each save is a versioned PUT). */
  live: z.boolean().optional(),
}).strict().describe("the caller's web-app preferences; every key optional, unknown keys refused");

export type Preferences = z.output<typeof preferencesSchema>;

export const storedPreferences = z.object({
  preferences: preferencesSchema,
  updatedAt: z.string().nullable().describe("when they were last written; null: never"),
});

export async function getPreferences(
  db: Kysely<VaultDatabase>,
  userId: string,
): Promise<z.output<typeof storedPreferences>> {
  const row = await db.selectFrom("user_preferences").select(["preferences", "updated_at"])
    .where("user_id", "=", userId).executeTakeFirst();
  if (!row) return { preferences: {}, updatedAt: null };
  // Written through the schema; parsed again so a key a later version dropped is not handed out.
  const parsed = preferencesSchema.safeParse(row.preferences);
  return {
    preferences: parsed.success ? parsed.data : {},
    updatedAt: new Date(row.updated_at).toISOString(),
  };
}

/** Replaces the user's preferences (PUT semantics: the client sends the whole document). */
export async function putPreferences(
  db: Kysely<VaultDatabase>,
  userId: string,
  preferences: Preferences,
): Promise<z.output<typeof storedPreferences>> {
  const updatedAt = new Date();
  await db.insertInto("user_preferences").values({ user_id: userId, preferences, updated_at: updatedAt })
    .onConflict((oc) => oc.column("user_id").doUpdateSet({ preferences, updated_at: updatedAt }))
    .execute();
  return { preferences, updatedAt: updatedAt.toISOString() };
}
