import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { ApiError, friendlyMessage } from "./errors.ts";

describe("ApiError and friendlyMessage", () => {
  it("carries the status and the optional code", () => {
    const err = new ApiError(400, "cannot remove, demote or ban the last admin", {
      code: "LAST_ADMIN_PROTECTED",
    });
    assert.ok(err instanceof Error);
    assert.equal(err.status, 400);
    assert.equal(err.code, "LAST_ADMIN_PROTECTED");
    assert.equal(new ApiError(404, "no such project").code, undefined);
  });

  it("says what happened in words a person understands", () => {
    assert.equal(
      friendlyMessage(new ApiError(400, "x", { code: "LAST_ADMIN_PROTECTED" })),
      "You can't remove, demote or ban the last admin. Make another user an admin first.",
    );
    assert.equal(
      friendlyMessage(
        new ApiError(400, "invalid request", { issues: [{ path: ["name"], message: "too long" }] }),
      ),
      "Name: too long.",
    );
    assert.equal(friendlyMessage(new ApiError(404, "no such project")), "No such project.");
    assert.equal(
      friendlyMessage(new ApiError(401, "unauthorized")),
      "Your session has ended. Please sign in again.",
    );
    assert.match(friendlyMessage(new ApiError(0, "network error")), /Can't reach memsvc/);
    assert.match(
      friendlyMessage(new ApiError(500, "internal server error", { requestId: "0a1b" })),
      /request 0a1b/,
    );
    assert.match(friendlyMessage(new ApiError(429, "too many")), /Wait a few minutes/);
  });
});
