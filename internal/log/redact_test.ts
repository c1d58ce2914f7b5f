import { test } from "node:test";
import assert from "node:assert/strict";
import { isSensitiveKey, redact, REDACTED, redactString } from "./redact.ts";

test("Authorization, Cookie and Set-Cookie headers are redacted in plain objects and Headers", () => {
  const plain = redact({
    authorization: "Basic dXNlcjpwYXNz",
    Cookie: "sid=abc",
    "set-cookie": "sid=abc; HttpOnly",
  });
  assert.deepEqual(plain, { authorization: REDACTED, Cookie: REDACTED, "set-cookie": REDACTED });
  const headers = new Headers({
    Authorization: "Token xyz",
    cookie: "a=b",
    "content-type": "application/json",
  });
  assert.deepEqual(redact(headers), {
    authorization: REDACTED,
    cookie: REDACTED,
    "content-type": "application/json",
  });
});

test("password fields are redacted at any depth, whatever their spelling", () => {
  const out = redact({
    body: { email: "a@b.c", password: "hunter2", newPassword: "n3w", new_password: "x" },
  });
  assert.deepEqual(out, {
    body: { email: "a@b.c", password: REDACTED, newPassword: REDACTED, new_password: REDACTED },
  });
});

test("secret and token keys are redacted but token hashes (identifiers) are kept", () => {
  assert.equal(isSensitiveKey("cookieSecret"), true);
  assert.equal(isSensitiveKey("accessToken"), true);
  assert.equal(isSensitiveKey("api_key"), true);
  assert.equal(isSensitiveKey("tokenHash"), false);
  assert.equal(isSensitiveKey("maxTokens"), false);
});

test("nm_ API tokens and ns_ session bearers are scrubbed from any string", () => {
  const s = redactString("minted nm_Q2hlY2tpbmdUaGlzVG9rZW4xMjM0NTY3OA and session ns_abcDEF123456_-x");
  assert.equal(s, `minted nm_${REDACTED} and session ns_${REDACTED}`);
  assert.doesNotMatch(s, /Q2hlY2tp|abcDEF/);
});

test("any Bearer credential is scrubbed, in messages and nested values", () => {
  assert.equal(
    redactString("Authorization: Bearer eyJhbGciOi.x.y retry"),
    `Authorization: Bearer ${REDACTED} retry`,
  );
  assert.deepEqual(redact({ note: ["sent bearer abc123"] }), { note: [`sent bearer ${REDACTED}`] });
});

test("user:pass@ in URLs keeps the user and hides the password", () => {
  assert.equal(
    redactString("connect postgres://app:s3cr%40t@db.internal:5432/mem failed"),
    `connect postgres://app:${REDACTED}@db.internal:5432/mem failed`,
  );
  assert.equal(redact(new URL("https://u:p@example.test/x")), `https://u:${REDACTED}@example.test/x`);
  assert.equal(redactString("https://example.test/a@b"), "https://example.test/a@b");
});

test("errors keep name and message, scrubbed, and cycles do not hang", () => {
  const err = new Error("login with nm_abcdefghijklmnop failed");
  const out = redact(err) as { name: string; message: string };
  assert.equal(out.name, "Error");
  assert.equal(out.message, `login with nm_${REDACTED} failed`);
  const loop: Record<string, unknown> = { a: 1 };
  loop.self = loop;
  assert.deepEqual(redact(loop), { a: 1, self: "[Circular]" });
});
