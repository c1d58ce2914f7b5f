/**
 * Prometheus metrics shared by the servers: the text exposition format (PromText) and fixed-bucket
 * latency histograms. Each tool keeps its own registry of what it measures.
 */
export { LATENCY_BUCKETS_MS, LatencyHistogram } from "./histogram.ts";
export {
  escapeHelp,
  escapeLabelValue,
  formatValue,
  type Labels,
  PROM_CONTENT_TYPE,
  type PromHistogram,
  type PromSample,
  PromText,
} from "./prometheus.ts";
export { LruMap } from "./lru.ts";
export { RateWindow } from "./rate_window.ts";
export { type RequestRecorder, routeTiming, UNMATCHED_ROUTE } from "./route_timing.ts";
