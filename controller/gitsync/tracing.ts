/**
 * OTLP tracing (seed section 4): on when OTEL_EXPORTER_OTLP_ENDPOINT or
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set, off when OTEL_SDK_DISABLED=true. Spans go over OTLP gRPC
 * with the OpenTelemetry JS SDK's exporter, which reads OTEL_EXPORTER_OTLP_HEADERS,
 * OTEL_EXPORTER_OTLP_INSECURE (and the certificate variables) itself; the resource takes
 * OTEL_SERVICE_NAME (default `gitsync`) and OTEL_RESOURCE_ATTRIBUTES.
 *
 * Code traces through `inSpan`, which uses the global tracer: a no-op until `startTracing` installs
 * the SDK, so nothing costs anything when tracing is off. Attribute values are redacted (seed
 * section 5.6: traces are among the places secrets must not reach).
 *
 * @example
 * const tracing = startTracing(process.env, log);          // undefined when off
 * await inSpan("render", { "gitsync.application": "shop/web" }, () => render());
 * await tracing?.shutdown();                                // flushes what is queued
 */
import { type Attributes, context, SpanStatusCode, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { OTLPTraceExporter } from "./otlp_grpc_exporter.cjs";
import { detectResources, envDetector, resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor, type SpanExporter, TracerProvider } from "@opentelemetry/sdk-trace";
import type { Logger } from "../../internal/log/mod.ts";
import { VERSION } from "../../internal/version/version.ts";
import { redact } from "./redact.ts";

const TRACER = "gitsync-manager";

export interface Tracing {
  /** Where spans go (the endpoint without credentials), for the start-up log line. */
  endpoint: string;
  /** Exports what is queued. */
  flush(): Promise<void>;
  /** Exports what is queued and stops. */
  shutdown(): Promise<void>;
}

/** Installs the SDK when the environment asks for traces; undefined when it does not. */
export function startTracing(
  env: Record<string, string | undefined>,
  log: Logger,
  exporter?: SpanExporter,
): Tracing | undefined {
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true" || (!endpoint && !exporter)) return undefined;
  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES (read by envDetector) win over the defaults.
  const resource = resourceFromAttributes({ "service.name": "gitsync", "service.version": VERSION })
    .merge(detectResources({ detectors: [envDetector] }));
  const provider = new TracerProvider({
    resource,
    spanProcessors: [
      new BatchSpanProcessor({ exporter: exporter ?? new OTLPTraceExporter(), scheduledDelayMillis: 1000 }),
    ],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(provider);
  return {
    endpoint: redact(endpoint ?? "in-process"),
    flush: () => provider.forceFlush(),
    async shutdown() {
      try {
        await provider.shutdown();
      } catch (err) {
        log.warn("trace export failed at shutdown", { error: redact((err as Error).message) });
      }
      trace.disable();
      context.disable();
    },
  };
}

/** Runs `fn` in a span named `name` (a child of the current one); a throw marks the span as an error. */
export async function inSpan<T>(name: string, attributes: Attributes, fn: () => Promise<T>): Promise<T> {
  const clean: Attributes = {};
  for (const [k, v] of Object.entries(attributes)) clean[k] = typeof v === "string" ? redact(v) : v;
  return await trace.getTracer(TRACER, VERSION).startActiveSpan(name, { attributes: clean }, async (span) => {
    try {
      return await fn();
    } catch (err) {
      span.recordException({ name: (err as Error).name, message: redact((err as Error).message) });
      span.setStatus({ code: SpanStatusCode.ERROR, message: redact((err as Error).message) });
      throw err;
    } finally {
      span.end();
    }
  });
}

/** Adds attributes to the current span (redacted), e.g. a reconcile's outcome. */
export function spanAttributes(attributes: Attributes): void {
  const span = trace.getActiveSpan();
  if (!span) return;
  for (const [k, v] of Object.entries(attributes)) {
    if (v !== undefined) span.setAttribute(k, typeof v === "string" ? redact(v) : v);
  }
}
