/** The vault's migrations, in order; each file is named for what it adds. */
import type { Migration } from "../../../../internal/db/mod.ts";
import { identity } from "./0001_identity.ts";
import { notesIndex } from "./0002_notes_index.ts";
import { shares } from "./0003_shares.ts";
import { passkeys } from "./0004_passkeys.ts";
import { collabLog } from "./0005_collab_log.ts";
import { plugins } from "./0006_plugins.ts";
import { searchChanges } from "./0007_search_changes.ts";
import { preferences } from "./0008_preferences.ts";
import { linkTargets } from "./0009_link_targets.ts";
import { keyBuckets } from "./0010_key_buckets.ts";

export const migrations: Record<string, Migration> = {
  "0001_identity": identity,
  "0002_notes_index": notesIndex,
  "0003_shares": shares,
  "0004_passkeys": passkeys,
  "0005_collab_log": collabLog,
  "0006_plugins": plugins,
  "0007_search_changes": searchChanges,
  "0008_preferences": preferences,
  "0009_link_targets": linkTargets,
  "0010_key_buckets": keyBuckets,
};
