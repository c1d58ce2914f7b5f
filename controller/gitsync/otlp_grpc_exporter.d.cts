export { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-grpc";
