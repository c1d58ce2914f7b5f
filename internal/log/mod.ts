export {
  createLogger,
  LOG_LEVELS,
  type LogFormat,
  type Logger,
  type LoggerOptions,
  type LogLevel,
  silentLogger,
} from "./logger.ts";
export { isSensitiveKey, redact, REDACTED, redactString } from "./redact.ts";
