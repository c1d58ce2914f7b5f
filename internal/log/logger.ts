/**
 * Structured logger: one JSON object per line on stderr (stdout belongs to command output and
 * to the MCP stdio bridge), or a readable line when stderr is a terminal. Every record passes
 * through redact(), so no caller can leak a credential by forgetting to.
 */
import { redact, redactString } from "./redact.ts";

export type LogLevel = "debug" | "info" | "warn" | "error";
export type LogFormat = "json" | "pretty" | "zap-json" | "zap-console";

/** How zap formats see `ts` (controller-runtime's --zap-time-encoding values). */
export const TIME_ENCODINGS = ["epoch", "millis", "nano", "iso8601", "rfc3339", "rfc3339nano"] as const;
export type TimeEncoding = typeof TIME_ENCODINGS[number];

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  /** A logger that adds `bindings` to every record. */
  child(bindings: Record<string, unknown>): Logger;
}

export interface LoggerOptions {
  /** Records below this level are dropped. Default "info". */
  level?: LogLevel;
  /** Default: "pretty" when the stream is a TTY, else "json". */
  format?: LogFormat;
  /** Where lines go. Default process.stderr. */
  stream?: { write(line: string): unknown; isTTY?: boolean };
  /** Fields added to every record, e.g. `{ service: "memsvc" }`. */
  bindings?: Record<string, unknown>;
  /** For the zap formats: how `ts` is written; default rfc3339 (controller-runtime's default). */
  timeEncoding?: TimeEncoding;
}

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };
export const LOG_LEVELS = Object.keys(RANK) as LogLevel[];

/**
 * @example
 * const log = createLogger({ bindings: { service: "memsvc" } });
 * log.info("listening", { port: 7778 });
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  const stream = options.stream ?? process.stderr;
  const format = options.format ?? (stream.isTTY ? "pretty" : "json");
  const min = RANK[options.level ?? "info"];
  const render = format === "pretty"
    ? renderPretty
    : format === "zap-json" || format === "zap-console"
    ? zapRenderer(format, options.timeEncoding ?? "rfc3339")
    : renderJson;

  const make = (bindings: Record<string, unknown>): Logger => {
    const write = (level: LogLevel, msg: string, fields?: Record<string, unknown>) => {
      if (RANK[level] < min) return;
      const rest = redact({ ...bindings, ...fields }) as Record<string, unknown>;
      stream.write(render(new Date(), level, redactString(msg), rest));
    };
    return {
      debug: (msg, fields) => write("debug", msg, fields),
      info: (msg, fields) => write("info", msg, fields),
      warn: (msg, fields) => write("warn", msg, fields),
      error: (msg, fields) => write("error", msg, fields),
      child: (more) => make({ ...bindings, ...more }),
    };
  };
  return make(options.bindings ?? {});
}

/** A logger that drops everything; for tests and library defaults. */
export const silentLogger: Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  child: () => silentLogger,
};

function renderJson(time: Date, level: LogLevel, msg: string, fields: Record<string, unknown>): string {
  return JSON.stringify({ time: time.toISOString(), level, msg, ...fields }) + "\n";
}

/**
 * zap's encoders as controller-runtime configures them, for log pipelines built for Kubernetes controllers:
 * JSON `{"level","ts","logger","msg",...fields}` or the console form `ts<TAB>LEVEL<TAB>logger<TAB>msg<TAB>{fields}`.
 * The `service` binding becomes zap's logger name.
 */
function zapRenderer(format: "zap-json" | "zap-console", encoding: TimeEncoding) {
  return (time: Date, level: LogLevel, msg: string, fields: Record<string, unknown>): string => {
    const { service, ...rest } = fields;
    const ts = zapTime(time, encoding);
    if (format === "zap-json") {
      return JSON.stringify({ level, ts, ...(service ? { logger: service } : {}), msg, ...rest }) + "\n";
    }
    const extra = Object.keys(rest).length ? `\t${JSON.stringify(rest)}` : "";
    return `${ts}\t${level.toUpperCase()}\t${service ? `${service}\t` : ""}${msg}${extra}\n`;
  };
}

function zapTime(time: Date, encoding: TimeEncoding): string | number {
  const ms = time.getTime();
  switch (encoding) {
    case "epoch":
      return ms / 1000;
    case "millis":
      return ms;
    case "nano":
      return ms * 1e6;
    case "iso8601":
      return time.toISOString(); // zap's layout 2006-01-02T15:04:05.000Z0700 prints UTC as ...000Z
    case "rfc3339":
      return time.toISOString().replace(/\.\d{3}Z$/, "Z");
    case "rfc3339nano":
      return time.toISOString().replace(/\.(\d{3})Z$/, ".$1000000Z").replace(/\.?0+Z$/, "Z");
  }
}

const COLOR: Record<LogLevel, string> = {
  debug: "\x1b[90m",
  info: "\x1b[36m",
  warn: "\x1b[33m",
  error: "\x1b[31m",
};

function renderPretty(time: Date, level: LogLevel, msg: string, fields: Record<string, unknown>): string {
  const clock = time.toISOString().slice(11, 23);
  const extras = Object.entries(fields).map(([k, v]) =>
    `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`
  );
  const head = `${clock} ${COLOR[level]}${level.toUpperCase().padEnd(5)}\x1b[0m ${msg}`;
  return [head, ...extras].join(" ") + "\n";
}
