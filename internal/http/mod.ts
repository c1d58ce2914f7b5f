export { type AppOptions, createApp, DEFAULT_BODY_LIMIT } from "./app.ts";
export type { AppEnv } from "./env.ts";
export { type Issue, issuesOf, notFound, onError, validationBody, ValidationError } from "./errors.ts";
export { ipMatcher, parseIp } from "./ip.ts";
export { randomRequestId, REQUEST_ID_PATTERN } from "./middleware/request_id.ts";
export { refuseCrossSiteWrites } from "./middleware/cross_site.ts";
export {
  rateLimit,
  type RateLimitBuckets,
  type RateLimitOptions,
  tooManyRequests,
} from "./middleware/rate_limit.ts";
export { type Bucket, TokenBuckets, type TokenBucketsOptions, type Verdict } from "./token_buckets.ts";
export { type ListenFactory, type RunningServer, serve, type ServeOptions } from "./serve.ts";
export { parseJson, parseJsonText, parseQuery, recordId } from "./validate.ts";
export { freePort, type HeldPort, holdFreePort } from "./free_port.ts";
