import assert from "node:assert/strict";
import { test } from "node:test";
import { matchesFilter, parseAccessLine } from "./access_log.ts";

const LINE = JSON.stringify({
  time: "2026-11-25T10:00:00.123Z",
  level: "info",
  msg: "access",
  gateway: "shop/main",
  route: "shop/web",
  backend: "shop/web",
  method: "GET",
  host: "shop.example.com",
  path: "/cart",
  status: 503,
  duration_ms: 12.5,
  bytes_out: 512,
  secret_header: "ignored",
});

test("parseAccessLine reads access records and ignores every other line", () => {
  const r = parseAccessLine(LINE, "", "node-1")!;
  assert.equal(r.status, 503);
  assert.equal(r.route, "shop/web");
  assert.equal(r.node, "node-1");
  assert.equal(r.duration_ms, 12.5);
  assert.equal((r as unknown as Record<string, unknown>).secret_header, undefined);
  assert.equal(parseAccessLine('{"msg":"config applied","generation":4}'), undefined);
  assert.equal(parseAccessLine("plain text"), undefined);
  assert.equal(parseAccessLine('{"msg":"access","status":"abc"}'), undefined);
  assert.equal(parseAccessLine("{broken"), undefined);
  assert.equal(
    parseAccessLine('{"msg":"access","status":200}', "2026-11-25T09:00:00Z")!.time,
    "2026-11-25T09:00:00Z",
  );
});

test("matchesFilter: names match in any namespace, namespace/name exactly; status and since", () => {
  const r = parseAccessLine(LINE)!;
  assert.ok(matchesFilter(r, { gateway: "main", route: "web", status: 503 }));
  assert.ok(matchesFilter(r, { gateway: "shop/main" }));
  assert.ok(!matchesFilter(r, { gateway: "other/main" }));
  assert.ok(!matchesFilter(r, { route: "we" }));
  assert.ok(!matchesFilter(r, { status: 200 }));
  assert.ok(matchesFilter(r, { since: new Date("2026-11-25T10:00:00Z") }));
  assert.ok(!matchesFilter(r, { since: new Date("2026-11-25T10:00:01Z") }));
});
