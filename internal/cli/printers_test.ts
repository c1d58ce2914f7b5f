import assert from "node:assert/strict";
import { test } from "node:test";
import { parseAllDocuments } from "yaml";
import { formatTable, printResult, type TableSpec } from "./printers.ts";
import { captureIo as capture } from "./testing.ts";

interface Pod {
  name: string;
  ready: string;
  restarts: number;
  node?: string;
}
const pods: { kind: string; items: Pod[] } = {
  kind: "List",
  items: [
    { name: "web-7d4b9c", ready: "1/1", restarts: 0, node: "worker-1" },
    { name: "db-0", ready: "0/1", restarts: 12 },
  ],
};
const podTable: TableSpec<typeof pods> = {
  headers: ["name", "ready", "restarts", "node"],
  rows: (list) => list.items.map((p) => [p.name, p.ready, p.restarts, p.node]),
  empty: "No resources found in default namespace.",
};

test("formatTable aligns columns like kubectl: width = widest + 3, at least 6; last column unpadded", () => {
  assert.equal(
    formatTable(["NAME", "OK", "AGE"], [["gateway-a", "y", "5m"], ["b", "no", "10d"]]),
    [
      "NAME        OK    AGE",
      "gateway-a   y     5m",
      "b           no    10d",
      "",
    ].join("\n"),
  );
});

test("table output: upper-case headers, <none> for empty cells, no trailing whitespace", () => {
  const { io, stdout, stderr } = capture();
  printResult(io, pods, "table", podTable);
  assert.equal(
    stdout(),
    [
      "NAME         READY   RESTARTS   NODE",
      "web-7d4b9c   1/1     0          worker-1",
      "db-0         0/1     12         <none>",
      "",
    ].join("\n"),
  );
  assert.equal(stderr(), "");
  for (const line of stdout().split("\n")) assert.equal(line, line.trimEnd());
});

test("<none> for null, undefined and empty string, but 0 and false are values", () => {
  assert.equal(
    formatTable(["a", "b", "c", "d", "e"], [[null, undefined, "", 0, false]]),
    "A        B        C        D     E\n<none>   <none>   <none>   0     false\n",
  );
});

test("cell width counts code points, so symbols align", () => {
  assert.equal(formatTable(["site", "healthy"], [["✓✓✓✓", "yes"]]), "SITE   HEALTHY\n✓✓✓✓   yes\n");
});

test("an empty table prints the caller's message on stderr and nothing on stdout", () => {
  const { io, stdout, stderr } = capture();
  printResult(io, { kind: "List", items: [] }, "table", podTable);
  assert.equal(stdout(), "");
  assert.equal(stderr(), "No resources found in default namespace.\n");
});

test("an empty table without a message says No resources found.", () => {
  const { io, stdout, stderr } = capture();
  printResult(io, [], "table", { headers: ["name"], rows: () => [] });
  assert.equal(stdout(), "");
  assert.equal(stderr(), "No resources found.\n");
});

test("json prints one document with 2-space indent and a trailing newline", () => {
  const { io, stdout } = capture();
  printResult(io, pods, "json", podTable);
  assert.equal(stdout(), `${JSON.stringify(pods, null, 2)}\n`);
  assert.deepEqual(JSON.parse(stdout()), pods);
  assert.ok(stdout().startsWith('{\n  "kind": "List",\n  "items": [\n'));
});

test("json and yaml print an empty list as a document, not the empty-table message", () => {
  const empty = { kind: "List", items: [] };
  for (const format of ["json", "yaml"] as const) {
    const { io, stdout, stderr } = capture();
    printResult(io, empty, format, podTable);
    assert.equal(stderr(), "");
    assert.notEqual(stdout(), "");
  }
});

test("yaml prints exactly one document", () => {
  const { io, stdout } = capture();
  printResult(io, pods, "yaml", podTable);
  const docs = parseAllDocuments(stdout());
  assert.equal(docs.length, 1);
  assert.deepEqual(docs[0]!.toJS(), pods);
  assert.doesNotMatch(stdout(), /^---/m);
});

test("a text printer renders non-tabular results in table format", () => {
  const { io, stdout } = capture();
  printResult(io, { version: "v1.2.3" }, "table", (v) => v.version);
  assert.equal(stdout(), "v1.2.3\n");
});

test("-o wide adds the spec's wide columns after the others; without them it is the table", () => {
  const wide: TableSpec<typeof pods> = {
    ...podTable,
    wide: { headers: ["ip"], rows: (l) => l.items.map((p) => [p.name === "db-0" ? "10.0.0.7" : undefined]) },
  };
  const { io, stdout } = capture();
  printResult(io, pods, "wide", wide);
  assert.equal(
    stdout(),
    [
      "NAME         READY   RESTARTS   NODE       IP",
      "web-7d4b9c   1/1     0          worker-1   <none>",
      "db-0         0/1     12         <none>     10.0.0.7",
      "",
    ].join("\n"),
  );
  const plain = capture();
  printResult(plain.io, pods, "wide", podTable);
  assert.match(plain.stdout(), /^NAME {9}READY {3}RESTARTS {3}NODE\n/);
});
