// The OpenTelemetry OTLP gRPC trace exporter, loaded through its CommonJS build. Its ESM build finds
// @grpc/grpc-js with createRequire(import.meta.url) at run time, which a `bun build --compile` binary
// cannot resolve ("Cannot find module '@grpc/grpc-js'"); plain require() calls are bundled.
module.exports = require("@opentelemetry/exporter-trace-otlp-grpc");
