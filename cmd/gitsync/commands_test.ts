/** gitsync's argument checks, run in-process: each is a usage error (exit 2) found before any cluster access. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { assertUsageError, executeCaptured, withEnv } from "../../internal/cli/testing.ts";
import { buildProgram } from "./main.ts";

/** A kubeconfig path that does not exist: reaching the cluster would fail with exit 1, not 2. */
const NO_CLUSTER = { KUBECONFIG: "/nonexistent/kubeconfig", GITSYNC_OUTPUT: undefined };

const usageError = (args: string[], message: RegExp) =>
  assertUsageError(buildProgram, args, message, NO_CLUSTER);

test("approve: a digest that is not sha256:<hex>, a timeout that is not a duration", async () => {
  await usageError(
    ["approve", "web", "--digest", "abc"],
    /^error: --digest must look like sha256:<64 hex digits>/,
  );
  await usageError(
    ["approve", "web", "--timeout", "5q"],
    /^error: --timeout must be a duration like 90s or 10m/,
  );
  await usageError(["approve"], /^error: missing required argument 'application'/);
  // No terminal in tests: without --yes or --digest there is nobody to ask.
  await usageError(
    ["approve", "web"],
    /^error: approve asks before approving and there is no terminal: pass --yes/,
  );
});

test("rollback, plan, history: a missing application, a bad timeout, an unknown output", async () => {
  await usageError(["rollback", "web", "--timeout", "0s"], /^error: --timeout must be a duration/);
  await usageError(
    ["rollback", "web", "--to-revision", "Not_A_Name"],
    /^error: --to-revision must be a Revision name, not "Not_A_Name"/,
  );
  await usageError(["plan"], /^error: missing required argument 'application'/);
  await usageError(["history", "web", "-o", "wide"], /argument 'wide' is invalid/);
  await usageError(["apps", "extra"], /too many arguments/);
});

test("the new commands check their arguments before reaching the cluster", async () => {
  await usageError(["get"], /^error: missing required argument 'application'/);
  await usageError(["status"], /^error: missing required argument 'application'/);
  await usageError(["revision"], /^error: missing required argument 'name'/);
  await usageError(["logs"], /^error: missing required argument 'application'/);
  await usageError(["suspend"], /^error: missing required argument 'application'/);
  await usageError(["resume", "a", "b"], /too many arguments/);
  await usageError(["sync", "web", "--timeout", "soon"], /^error: --timeout must be a duration/);
});

test("without a cluster, a command fails with exit 1 and one line naming the kubeconfig", async () => {
  await withEnv(NO_CLUSTER, async () => {
    const r = await executeCaptured(buildProgram, ["apps"]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^error: .*\/nonexistent\/kubeconfig/);
  });
});
