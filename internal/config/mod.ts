export { ConfigError, csv, flag, loadEnv, port, positiveInt } from "./env.ts";
export { defaultDataDir } from "./paths.ts";
