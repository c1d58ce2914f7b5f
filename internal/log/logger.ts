/**
 * Structured logger: one JSON object per line on stderr (stdout belongs to command output and
 * to the MCP stdio bridge), or a readable line when stderr is a terminal. Every record passes
 * through redact(), so no caller can leak a credential by forgetting to.
 */
import { redact, redactString } from "./redact.ts";

export type LogLevel = "debug" | "info" | "warn" | "error";
export type LogFormat = "json" | "pretty";

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
  const render = format === "pretty" ? renderPretty : renderJson;

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
