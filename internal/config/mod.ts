export { ConfigError, csv, flag, loadEnv, port, positiveInt, withFlags } from "./env.ts";
export { defaultDataDir } from "./paths.ts";
