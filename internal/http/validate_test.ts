import { test } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import { silentLogger } from "../log/mod.ts";
import { createApp } from "./app.ts";
import { parseJson, parseQuery } from "./validate.ts";

const app = createApp({ log: silentLogger });
app.post("/body", async (c) => c.json(await parseJson(c, z.object({ label: z.string().default("none") }))));
app.get(
  "/query",
  (c) => c.json(parseQuery(c, z.object({ limit: z.coerce.number().int().max(500).default(50) }))),
);
const call = (path: string, init?: RequestInit) => app.request(path, init, { remoteAddr: "127.0.0.1" });

test("malformed JSON is a 400 with an issue, not a 500", async () => {
  const res = await call("/body", { method: "POST", body: "{nope" });
  assert.equal(res.status, 400);
  assert.deepEqual((await res.json()).issues, [{
    path: [],
    message: "body is not valid JSON",
    code: "invalid_json",
  }]);
});

test("an empty body parses as {} and schema defaults apply", async () => {
  assert.deepEqual(await (await call("/body", { method: "POST" })).json(), { label: "none" });
});

test("query values are coerced and validated", async () => {
  assert.deepEqual(await (await call("/query?limit=7")).json(), { limit: 7 });
  assert.equal((await call("/query?limit=501")).status, 400);
});
