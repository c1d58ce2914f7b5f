import type { AuthEnv } from "../../internal/auth/mod.ts";

/** The Hono environment of memsvc's routes: the shared app's plus the resolved caller. */
export type MemsvcEnv = AuthEnv;
