import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { camelSplit, describeObject, smartLabel } from "./describe.ts";

/** Objects and events read from a real API server, with what kubectl 1.32 printed for them. */
const fixture = (name: string) => readFileSync(new URL(`./testdata/${name}`, import.meta.url), "utf8");
const now = new Date(fixture("now.txt").trim());

test("describe matches kubectl describe byte for byte, Events table included", () => {
  const events = JSON.parse(fixture("describe_gateway_events.json")).items;
  assert.equal(
    describeObject(JSON.parse(fixture("describe_gateway.json")), events, now),
    fixture("describe_gateway.txt"),
  );
});

test("describe matches kubectl for nested lists, odd keys, long and multi-line annotations", () => {
  assert.equal(
    describeObject(JSON.parse(fixture("describe_probe.json")), [], now),
    fixture("describe_probe.txt"),
  );
  assert.equal(
    describeObject(JSON.parse(fixture("describe_route.json")), [], now),
    fixture("describe_route.txt"),
  );
});

test("without readable events the Events section is left out", () => {
  const text = describeObject({ metadata: { name: "a", namespace: "b" }, kind: "ProxyVIP" }, undefined, now);
  assert.equal(
    text,
    "Name:         a\nNamespace:    b\nLabels:       <none>\nAnnotations:  <none>\nKind:         ProxyVIP\nMetadata:\n",
  );
});

test("smartLabel turns camelCase keys into kubectl's labels", () => {
  assert.equal(smartLabel("apiVersion"), "API Version");
  assert.equal(smartLabel("lastTransitionTime"), "Last Transition Time");
  assert.equal(smartLabel("camelURLField"), "Camel URL Field");
  assert.equal(smartLabel("uid"), "UID");
  assert.equal(smartLabel("minTLSVersion"), "Min TLS Version");
  assert.equal(smartLabel("with_underscore"), "with_underscore");
  assert.equal(smartLabel("ipv4"), "ipv4");
  assert.deepEqual(camelSplit("PDFLoader"), ["PDF", "Loader"]);
});
