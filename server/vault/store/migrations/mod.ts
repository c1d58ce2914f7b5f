/** The vault's migrations, in order; each file is named for what it adds. */
import type { Migration } from "../../../../internal/db/mod.ts";
import { identity } from "./0001_identity.ts";

export const migrations: Record<string, Migration> = {
  "0001_identity": identity,
};
