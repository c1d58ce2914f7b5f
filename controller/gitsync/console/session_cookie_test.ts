import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { loadSessionKey, SessionCookies } from "./session_cookie.ts";

const key = new Uint8Array(32).fill(7);
const header = (setCookies: string[]) => setCookies.map((c) => c.split(";")[0]).join("; ");

describe("SessionCookies", () => {
  it("round-trips a 16 KiB token over several HttpOnly Secure SameSite=Lax cookies", () => {
    const cookies = new SessionCookies(key);
    const token = "x".repeat(16 * 1024);
    const set = cookies.set("s", { token }, Date.now() + 60_000);
    const used = set.filter((c) => !/Max-Age=0/.test(c));
    assert.ok(used.length > 1, "split over several cookies");
    for (const c of set) {
      assert.ok(c.length < 4096, "each cookie fits in 4 KiB");
      assert.match(c, /; Path=\/; HttpOnly; Secure; SameSite=Lax; Max-Age=\d+$/);
    }
    assert.doesNotMatch(set.join(""), /xxxx/, "the token is not readable in the cookie");
    assert.deepEqual(cookies.get(header(used), "s"), { token });
  });

  it("refuses an altered cookie, another key, and another cookie name", () => {
    const cookies = new SessionCookies(key);
    const [first] = cookies.set("s", { user: "a" }, Date.now() + 60_000);
    const value = first!.split(";")[0]!.slice("s.0=".length);
    const flipped = value.slice(0, 20) + (value[20] === "A" ? "B" : "A") + value.slice(21);
    assert.equal(cookies.get(`s.0=${flipped}`, "s"), undefined);
    assert.equal(new SessionCookies(new Uint8Array(32).fill(8)).get(`s.0=${value}`, "s"), undefined);
    assert.equal(cookies.get(`t.0=${value}`, "t"), undefined);
    assert.deepEqual(cookies.get(`s.0=${value}`, "s"), { user: "a" });
  });

  it("clears every chunk", () => {
    for (const c of new SessionCookies(key).clear("s")) assert.match(c, /=; .*Max-Age=0$/);
  });
});

describe("loadSessionKey", () => {
  it("reads hex, base64 and raw files, and refuses anything else", () => {
    const dir = mkdtempSync(join(tmpdir(), "console-key-"));
    const hex = "ab".repeat(32);
    assert.equal(loadSessionKey({ value: hex }).length, 32);
    assert.equal(loadSessionKey({ value: Buffer.alloc(32, 1).toString("base64") }).length, 32);
    writeFileSync(join(dir, "raw"), Buffer.alloc(32, 200));
    assert.equal(loadSessionKey({ file: join(dir, "raw") })[0], 200);
    writeFileSync(join(dir, "hex"), `${hex}\n`);
    assert.equal(loadSessionKey({ file: join(dir, "hex") })[0], 0xab);
    assert.throws(
      () => loadSessionKey({ value: "short", name: "GITSYNC_CONSOLE_SESSION_KEY" }),
      /GITSYNC_CONSOLE_SESSION_KEY.*32 bytes/,
    );
    assert.throws(() => loadSessionKey({ file: join(dir, "missing") }), /cannot read/);
  });
});
