import assert from "node:assert/strict";
import { test } from "node:test";
import { checkExposition } from "../../test/harness/prometheus_format.ts";
import { ManagerMetrics } from "./metrics.ts";

test("reconciles counted by controller and result, durations in seconds, gauges from the caches; valid exposition", () => {
  const m = new ManagerMetrics({
    revisionPhases: () => new Map([["Healthy", 3], ["AwaitingApproval", 1]]),
    applicationsReady: () => new Map([["True", 2]]),
    queueDepth: () => new Map([["Revision", 5]]),
    leader: () => true,
  });
  m.observe("Revision", "success", 12);
  m.observe("Revision", "success", 2_000);
  m.observe("Revision", "error", 3);
  const text = m.render();
  checkExposition(text);
  assert.match(text, /^gitsync_reconcile_total\{controller="Revision",result="success"\} 2$/m);
  assert.match(text, /^gitsync_reconcile_total\{controller="Revision",result="error"\} 1$/m);
  assert.match(text, /^gitsync_reconcile_duration_seconds_bucket\{controller="Revision",le="0.025"\} 2$/m);
  assert.match(text, /^gitsync_reconcile_duration_seconds_sum\{controller="Revision"\} 2.015$/m);
  assert.match(text, /^gitsync_workqueue_depth\{controller="Revision"\} 5$/m);
  assert.match(text, /^gitsync_leader 1$/m);
  assert.match(text, /^gitsync_revisions\{phase="AwaitingApproval"\} 1$/m);
  assert.match(text, /^gitsync_applications\{ready="True"\} 2$/m);
});
