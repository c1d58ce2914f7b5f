import { test } from "node:test";
import assert from "node:assert/strict";
import { countJunit } from "./junit.ts";

test("counts leaf cases, not parents of steps, and lists failures", () => {
  const xml = `<testsuites>
    <testsuite name="a">
      <testcase name="group" classname="a"><failure message="1 test step failed">x</failure></testcase>
      <testcase name="top" classname="a"></testcase>
      <testcase name="top &gt; sub" classname="a"></testcase>
      <testcase name="lone" classname="a"/>
      <testcase name="ignored" classname="a"><skipped/></testcase>
    </testsuite>
    <testsuite name="b">
      <testcase name="group &gt; passes" classname="b"></testcase>
      <testcase name="group &gt; fails" classname="b"><failure message="boom">boom</failure></testcase>
    </testsuite>
  </testsuites>`;
  assert.deepEqual(countJunit(xml), {
    passed: 3,
    failed: 1,
    skipped: 1,
    failures: ["group > fails"],
    skips: ["ignored"],
  });
});
