import { test } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import { ConfigError, csv, flag, loadEnv, port, withFlags } from "./env.ts";
import { defaultDataDir } from "./paths.ts";

const schema = z.object({
  APP_PORT: port(7778),
  APP_DEBUG: flag(false),
  APP_ORIGINS: csv(),
  APP_SECRET: z.string().min(16, "must be at least 16 characters"),
});

test("applies defaults and coerces types", () => {
  const cfg = loadEnv(schema, { APP_SECRET: "0123456789abcdef", APP_DEBUG: "yes", APP_ORIGINS: "a, b,," });
  assert.deepEqual(cfg, {
    APP_PORT: 7778,
    APP_DEBUG: true,
    APP_ORIGINS: ["a", "b"],
    APP_SECRET: "0123456789abcdef",
  });
});

test("names every bad or missing variable, and never echoes a secret", () => {
  assert.throws(() => loadEnv(schema, { APP_PORT: "http", APP_SECRET: "short-secret" }), (err) => {
    assert.ok(err instanceof ConfigError);
    assert.match(err.message, /APP_PORT: must be a port number \(got "http"\)/);
    assert.match(err.message, /APP_SECRET: must be at least 16 characters/);
    assert.ok(!err.message.includes("short-secret"));
    return true;
  });
  assert.throws(() => loadEnv(schema, {}), /APP_SECRET is required but not set/);
  assert.throws(
    () => loadEnv(schema, { APP_SECRET: "0123456789abcdef", APP_PORT: "70000" }),
    /APP_PORT: must be 0..65535/,
  );
});

test("credentials inside a bad value are not echoed", () => {
  const urlSchema = z.object({ APP_DB: z.string().startsWith("postgres://", "must be a postgres:// URL") });
  assert.throws(() => loadEnv(urlSchema, { APP_DB: "mysql://root:hunter2@db/x" }), (err: Error) => {
    assert.match(err.message, /APP_DB: must be a postgres:\/\/ URL/);
    assert.ok(!err.message.includes("hunter2"));
    return true;
  });
});

test("an empty variable counts as unset", () => {
  assert.equal(loadEnv(schema, { APP_SECRET: "0123456789abcdef", APP_PORT: "" }).APP_PORT, 7778);
});

test("default data dir follows the platform convention", () => {
  assert.equal(defaultDataDir("memsvc", { HOME: "/h" }, "linux"), "/h/.local/share/memsvc");
  assert.equal(defaultDataDir("memsvc", { HOME: "/h", XDG_DATA_HOME: "/x" }, "linux"), "/x/memsvc");
  assert.equal(defaultDataDir("memsvc", { HOME: "/h" }, "darwin"), "/h/Library/Application Support/memsvc");
});

test("withFlags lays given flags over the environment and leaves the rest", () => {
  assert.deepEqual(withFlags({ A: "1", B: "2" }, { A: "9", B: undefined, C: "3" }), {
    A: "9",
    B: "2",
    C: "3",
  });
});
