import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Hono } from "hono";
import { refuseCrossSiteWrites } from "./cross_site.ts";

const app = new Hono();
app.use(refuseCrossSiteWrites());
app.all("/x", (c) => c.text("done"));
const call = (method: string, headers: Record<string, string>) =>
  app.request("http://console.test/x", { method, headers: { host: "console.test", ...headers } });

describe("refuseCrossSiteWrites", () => {
  const cases: [string, string, Record<string, string>, number][] = [
    ["same-origin fetch", "POST", { "sec-fetch-site": "same-origin" }, 200],
    ["cross-site", "POST", { "sec-fetch-site": "cross-site" }, 403],
    ["same-site (a sibling subdomain)", "POST", { "sec-fetch-site": "same-site" }, 403],
    ["typed by the user (none)", "POST", { "sec-fetch-site": "none" }, 403],
    ["Sec-Fetch-Site wins over a matching Origin", "POST", {
      "sec-fetch-site": "cross-site",
      origin: "http://console.test",
    }, 403],
    ["old browser, own Origin", "POST", { origin: "http://console.test" }, 200],
    ["old browser, other Origin", "POST", { origin: "https://evil.example" }, 403],
    ["opaque Origin", "POST", { origin: "null" }, 403],
    ["unparseable Origin", "POST", { origin: "::" }, 403],
    ["no browser headers (curl)", "POST", {}, 200],
    ["DELETE cross-site", "DELETE", { "sec-fetch-site": "cross-site" }, 403],
    ["GET cross-site (a link)", "GET", { "sec-fetch-site": "cross-site" }, 200],
  ];
  for (const [name, method, headers, status] of cases) {
    it(`${status === 403 ? "refuses" : "lets through"} ${name}`, async () => {
      const res = await call(method, headers);
      assert.equal(res.status, status);
      if (status === 403) assert.deepEqual(await res.json(), { error: "cross-site request refused" });
    });
  }
});
