import { test } from "node:test";
import assert from "node:assert/strict";
import { createLogger } from "./logger.ts";
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
