import type { AppEnv } from "../../internal/http/mod.ts";
import type { CallerVariables } from "./auth/caller.ts";

/** The Hono environment of memsvc's routes: the shared app's plus the resolved caller. */
export interface MemsvcEnv {
  Bindings: AppEnv["Bindings"];
  Variables: AppEnv["Variables"] & CallerVariables;
}
