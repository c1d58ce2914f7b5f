import assert from "node:assert/strict";
import { test } from "node:test";
import { parseEndpoint } from "./endpoint.ts";

test("credentials move to a Basic header and out of the printable URL", () => {
  assert.deepEqual(parseEndpoint("https://ops:s3cr%40t@prom.example.com:9090/", "--prometheus-url"), {
    url: "https://prom.example.com:9090",
    headers: { authorization: `Basic ${btoa("ops:s3cr@t")}` },
  });
  assert.deepEqual(parseEndpoint("http://localhost:16686/jaeger", "--trace-endpoint"), {
    url: "http://localhost:16686/jaeger",
    headers: {},
  });
});

test("bad URLs are refused without echoing a password", () => {
  assert.equal(
    parseEndpoint("ftp://u:pw@host", "--prometheus-url"),
    '--prometheus-url: "ftp://host" is not an http or https URL',
  );
  const bad = parseEndpoint("//u:pw@", "--trace-endpoint");
  assert.equal(typeof bad, "string");
  assert.ok(!String(bad).includes("pw"));
  assert.equal(
    parseEndpoint("localhost:9090", "--prometheus-url"),
    '--prometheus-url: "localhost:9090" is not an http or https URL',
  );
});
