import assert from "node:assert/strict";
import { test } from "node:test";
import { redact, redactObject } from "./redact.ts";

test("credentials in URLs become REDACTED@host, with or without a password part", () => {
  assert.equal(
    redact("fetching https://bob:ghp_abc123@github.com/org/repo.git failed"),
    "fetching https://REDACTED@github.com/org/repo.git failed",
  );
  assert.equal(redact("https://x-access-token@git.example.com/r"), "https://REDACTED@git.example.com/r");
  assert.equal(redact("ssh://git@github.com/org/repo"), "ssh://REDACTED@github.com/org/repo");
  assert.equal(
    redact("see https://example.com/a@b"),
    "see https://example.com/a@b",
    "an @ in the path stays",
  );
});

test("bearer tokens and password assignments lose their values, keys stay", () => {
  assert.equal(redact("Authorization: Bearer eyJhbGciOi.x.y"), "Authorization: Bearer [REDACTED]");
  assert.equal(redact("DB_PASSWORD=hunter2 next"), "DB_PASSWORD=REDACTED next");
  assert.equal(redact("  password: 's3cr3t word'"), "  password: 'REDACTED'");
  assert.equal(redact('{"adminPassword": "x y"}'), '{"adminPassword": "REDACTED"}');
  assert.equal(redact('{"password":"a","b":1}'), '{"password":"REDACTED","b":1}', "JSON stays JSON");
  assert.equal(redact("db_passwd=abc;pwd = z"), "db_passwd=REDACTED;pwd = REDACTED");
  assert.equal(
    redact("passwordPolicy: strict\npassword:\n  nested: x"),
    "passwordPolicy: strict\npassword:\n  nested: x",
  );
});

test("redactObject hides every value of a Secret, password fields and credentials in any string", () => {
  const secret = {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: "s" },
    data: { a: "aGk=" },
    stringData: { b: "x" },
  };
  assert.deepEqual(redactObject(secret), {
    ...secret,
    data: { a: "REDACTED" },
    stringData: { b: "REDACTED" },
  });
  const cm = {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "c" },
    data: { a: "1", "app.properties": "url=https://u:p@db/x\ndb.password=hunter2\n", adminPassword: "x" },
  };
  assert.deepEqual(redactObject(cm), {
    ...cm,
    data: {
      a: "1",
      "app.properties": "url=https://REDACTED@db/x\ndb.password=REDACTED\n",
      adminPassword: "REDACTED",
    },
  });
  assert.deepEqual(cm.data.adminPassword, "x", "the input is not changed");
});
