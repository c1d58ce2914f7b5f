import assert from "node:assert/strict";
import { test } from "node:test";
import { parseBindAddress } from "./manager.ts";

test("bind addresses: :port listens everywhere, host:port and [v6]:port as given, anything else refused", () => {
  assert.deepEqual(parseBindAddress(":8081"), { host: "0.0.0.0", port: 8081 });
  assert.deepEqual(parseBindAddress("127.0.0.1:0"), { host: "127.0.0.1", port: 0 });
  assert.deepEqual(parseBindAddress("[::1]:9443"), { host: "::1", port: 9443 });
  for (const bad of ["8081", "host", ":", ":99999", "a:b", "::1:80"]) {
    assert.throws(() => parseBindAddress(bad), /is not a bind address/, bad);
  }
});
