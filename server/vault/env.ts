import type { AuthEnv } from "../../internal/auth/mod.ts";

/** The Hono environment of the vault's routes: the shared app's plus the resolved caller. */
export type VaultEnv = AuthEnv;
