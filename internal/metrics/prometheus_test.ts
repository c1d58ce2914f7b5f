import assert from "node:assert/strict";
import { test } from "node:test";
import { checkExposition } from "../../test/harness/prometheus_format.ts";
import { escapeHelp, escapeLabelValue, formatValue, PromText } from "./prometheus.ts";

test("label values escape backslash, double quote and newline; help escapes backslash and newline", () => {
  assert.equal(escapeLabelValue('a\\b"c\nd'), 'a\\\\b\\"c\\nd');
  assert.equal(escapeHelp('say "hi"\\\nbye'), 'say "hi"\\\\\\nbye');
});

test("values: integers, fractions and the special values", () => {
  assert.deepEqual([3, 0.25, NaN, Infinity, -Infinity].map(formatValue), [
    "3",
    "0.25",
    "NaN",
    "+Inf",
    "-Inf",
  ]);
});

test("renders HELP and TYPE once per family, then its samples", () => {
  const text = new PromText()
    .counter("memsvc_things_total", "Things.\nMany.", [{ value: 2 }, {
      labels: { kind: 'odd "one"\\' },
      value: 1,
    }])
    .gauge("memsvc_level", "Level.", [{ value: 0.5 }])
    .histogram("memsvc_wait_seconds", "Wait.", [{
      labels: { route: "/v1/memories/:id" },
      bounds: [0.001, 0.005],
      cumulative: [1, 3, 4],
      sum: 2.5,
    }])
    .toString();
  assert.equal(
    text,
    [
      "# HELP memsvc_things_total Things.\\nMany.",
      "# TYPE memsvc_things_total counter",
      "memsvc_things_total 2",
      'memsvc_things_total{kind="odd \\"one\\"\\\\"} 1',
      "# HELP memsvc_level Level.",
      "# TYPE memsvc_level gauge",
      "memsvc_level 0.5",
      "# HELP memsvc_wait_seconds Wait.",
      "# TYPE memsvc_wait_seconds histogram",
      'memsvc_wait_seconds_bucket{route="/v1/memories/:id",le="0.001"} 1',
      'memsvc_wait_seconds_bucket{route="/v1/memories/:id",le="0.005"} 3',
      'memsvc_wait_seconds_bucket{route="/v1/memories/:id",le="+Inf"} 4',
      'memsvc_wait_seconds_sum{route="/v1/memories/:id"} 2.5',
      'memsvc_wait_seconds_count{route="/v1/memories/:id"} 4',
      "",
    ].join("\n"),
  );
  const checked = checkExposition(text);
  assert.deepEqual(checked.problems, []);
  assert.equal(checked.samples.find((s) => s.labels.kind)?.labels.kind, 'odd "one"\\');
});

test("refuses what would make the exposition invalid", () => {
  assert.throws(() => new PromText().counter("memsvc_things", "x", []), /must end in _total/);
  assert.throws(() => new PromText().gauge("memsvc-level", "x", []), /invalid metric name/);
  assert.throws(() => new PromText().gauge("a", "x", []).gauge("a", "x", []), /written twice/);
  assert.throws(
    () => new PromText().gauge("a", "x", [{ labels: { "bad-name": "v" }, value: 1 }]),
    /invalid label/,
  );
});

test("the strict checker rejects malformed expositions", () => {
  const bad = (text: string) => checkExposition(text).problems;
  assert.notDeepEqual(bad("x 1\n"), [], "sample without TYPE");
  assert.notDeepEqual(bad("# TYPE x gauge\n# TYPE x gauge\nx 1\n"), [], "TYPE twice");
  assert.notDeepEqual(bad("# TYPE x gauge\nx 1\n# HELP x late\n"), [], "HELP after samples");
  assert.notDeepEqual(bad('# TYPE x gauge\nx{a="b\\t"} 1\n'), [], "bad escape");
  assert.notDeepEqual(bad("# TYPE x gauge\nx one\n"), [], "bad value");
  assert.notDeepEqual(bad("# TYPE x gauge\n# just a comment\nx 1\n"), [], "other comment");
  assert.notDeepEqual(
    bad('# TYPE h histogram\nh_bucket{le="1"} 2\nh_bucket{le="+Inf"} 1\nh_sum 1\nh_count 1\n'),
    [],
  );
  assert.notDeepEqual(bad('# TYPE h histogram\nh_bucket{le="1"} 1\nh_sum 1\nh_count 1\n'), [], "no +Inf");
  assert.notDeepEqual(
    bad('# TYPE h histogram\nh_bucket{le="+Inf"} 2\nh_sum 1\nh_count 3\n'),
    [],
    "+Inf != count",
  );
  assert.notDeepEqual(bad("# TYPE x gauge\nx 1\n# TYPE y gauge\ny 1\nx 2\n"), [], "family split");
  assert.notDeepEqual(bad("# TYPE x gauge\nx 1"), [], "no final newline");
});
