import { test } from "node:test";
import assert from "node:assert/strict";
import { createLogger, type TimeEncoding } from "./logger.ts";
import { REDACTED } from "./redact.ts";

function capture(format: "json" | "pretty" = "json", level: "debug" | "info" = "info") {
  const lines: string[] = [];
  const log = createLogger({ format, level, stream: { write: (l: string) => lines.push(l) } });
  return { log, lines };
}

test("writes one JSON object per line with time, level, msg, bindings and fields", () => {
  const { log, lines } = capture();
  log.child({ service: "memsvc" }).info("listening", { port: 7778 });
  assert.equal(lines.length, 1);
  assert.ok(lines[0]!.endsWith("\n"));
  const rec = JSON.parse(lines[0]!);
  assert.equal(rec.level, "info");
  assert.equal(rec.msg, "listening");
  assert.equal(rec.service, "memsvc");
  assert.equal(rec.port, 7778);
  assert.ok(!Number.isNaN(Date.parse(rec.time)));
});

test("drops records below the configured level", () => {
  const { log, lines } = capture("json", "info");
  log.debug("noise");
  log.warn("kept");
  assert.deepEqual(lines.map((l) => JSON.parse(l).msg), ["kept"]);
});

test("redacts secrets in messages, fields and bindings, in both formats", () => {
  for (const format of ["json", "pretty"] as const) {
    const { log, lines } = capture(format);
    log.child({ authorization: "Bearer abc.def" }).error("token nm_abcdefghijkl rejected", {
      headers: { cookie: "sid=1" },
      password: "hunter2",
      url: "postgres://u:hunter2@h/db",
    });
    const out = lines.join("");
    for (const secret of ["abc.def", "abcdefghijkl", "sid=1", "hunter2"]) {
      assert.ok(!out.includes(secret), `${format} output leaked ${secret}: ${out}`);
    }
    assert.ok(out.includes(REDACTED));
  }
});

test("zap formats: level, ts, logger, msg as controller-runtime writes them, in each time encoding", () => {
  const line = (format: "zap-json" | "zap-console", timeEncoding?: TimeEncoding) => {
    const lines: string[] = [];
    const log = createLogger({
      format,
      ...(timeEncoding ? { timeEncoding } : {}),
      bindings: { service: "gitsync-manager" },
      stream: { write: (l: string) => lines.push(l) },
    });
    log.warn("watch failed", { kind: "Application", password: "hunter2" });
    return lines[0]!;
  };
  const rec = JSON.parse(line("zap-json"));
  assert.deepEqual(Object.keys(rec), ["level", "ts", "logger", "msg", "kind", "password"]);
  assert.equal(rec.logger, "gitsync-manager");
  assert.match(rec.ts, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/, "rfc3339 by default");
  assert.equal(rec.password, REDACTED);
  assert.equal(typeof JSON.parse(line("zap-json", "epoch")).ts, "number");
  assert.ok(JSON.parse(line("zap-json", "millis")).ts > 1e12);
  assert.match(
    JSON.parse(line("zap-json", "rfc3339nano")).ts,
    /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?Z$/,
  );
  assert.match(JSON.parse(line("zap-json", "iso8601")).ts, /\.\d{3}Z$/);
  assert.match(
    line("zap-console"),
    /^\S+\tWARN\tgitsync-manager\twatch failed\t\{"kind":"Application","password":"\[REDACTED\]"\}\n$/,
  );
});
