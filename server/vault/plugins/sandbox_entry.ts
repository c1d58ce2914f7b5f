/** The sandbox process from source (the compiled binary runs it as `vault __plugin-sandbox`). */
import { runPluginSandbox } from "./sandbox.ts";

if (import.meta.main) await runPluginSandbox();
