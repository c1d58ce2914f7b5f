export {
  createLogger,
  LOG_LEVELS,
  type LogFormat,
  type Logger,
  type LoggerOptions,
  type LogLevel,
  silentLogger,
  TIME_ENCODINGS,
  type TimeEncoding,
} from "./logger.ts";
export { isSensitiveKey, redact, REDACTED, redactString } from "./redact.ts";
