import assert from "node:assert/strict";
import { test } from "node:test";
import { DescribeWriter } from "./describe.ts";

test("labels line up over a run of lines with cells; a line without cells ends the run", () => {
  const w = new DescribeWriter({ minWidth: 0, padding: 1 });
  w.write(0, "Name:", "shop/web").write(0, "Service account:", "deployer").write(0, "Conditions:");
  w.write(1, "Ready=True").write(2, "all\tready").write(0, "Failure:", "none");
  assert.equal(
    w.toString(),
    "Name:            shop/web\nService account: deployer\nConditions:\n  Ready=True\n    all\tready\nFailure: none",
  );
});

test("minWidth keeps a later run aligned with an earlier one; flush starts new columns", () => {
  const w = new DescribeWriter({ minWidth: 10, padding: 1 });
  w.write(0, "A:", "1").write(0, "Items:").write(0, "B:", "2").flush().write(0, "", "3");
  assert.equal(w.toString(), "A:        1\nItems:\nB:        2\n          3");
});

test("kubectl's default: padding 2, indented levels, values kept whole", () => {
  const w = new DescribeWriter();
  w.write(0, "Spec:").write(1, "Port:", "80").write(1, "Host Name:", "a\nb");
  assert.equal(w.toString(), "Spec:\n  Port:       80\n  Host Name:  a\nb");
});
