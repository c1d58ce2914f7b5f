/** edgectl's argument checks, run in-process: each is a usage error (exit 2) found before any cluster access. */
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { assertUsageError, executeCaptured, withEnv } from "../../internal/cli/testing.ts";
import { buildProgram } from "./main.ts";

/** A kubeconfig path that does not exist: reaching the cluster would fail with exit 1, not 2. */
const NO_CLUSTER = { KUBECONFIG: "/nonexistent/kubeconfig", EDGECTL_OUTPUT: undefined };

const usageError = (args: string[], message: RegExp) =>
  assertUsageError(buildProgram, args, message, NO_CLUSTER);

test("get: unknown types, several types, and a name with -A are usage errors", async () => {
  await usageError(
    ["get", "gatways"],
    /^error: unknown resource type "gatways" \(did you mean "gateways"\?\)/,
  );
  await usageError(["get", "gw,rt"], /^error: get takes one resource type, not "gw,rt"/);
  await usageError(
    ["get", "gw", "main", "-A"],
    /^error: a resource cannot be retrieved by name across all namespaces/,
  );
  await usageError(
    ["get", "gw", "-o", "wide"],
    /^error: option '-o, --output <format>' argument 'wide' is invalid/,
  );
});

test("delete: names or --all or -f, and a numeric grace period", async () => {
  await usageError(["delete", "gw"], /^error: no name given: edgectl delete gw <name>, or --all/);
  await usageError(["delete", "gw", "a", "--all"], /^error: give names or --all, not both/);
  await usageError(
    ["delete", "gw", "-f", "x.yaml"],
    /^error: -f cannot be combined with a resource type or --all/,
  );
  await usageError(["delete"], /^error: give a resource type and names, a type and --all, or -f <file>/);
  await usageError(
    ["delete", "gw", "a", "--grace-period", "soon"],
    /^error: --grace-period must be an integer/,
  );
  await usageError(
    ["delete", "gw,polices", "--all"],
    /^error: unknown resource type "polices" \(did you mean "policies"\?\)/,
  );
});

test("apply needs -f; --force-conflicts needs --server-side", async () => {
  await usageError(["apply"], /^error: -f\/--filename is required/);
  await usageError(
    ["apply", "-f", "x.yaml", "--force-conflicts"],
    /^error: --force-conflicts requires --server-side/,
  );
});

test("apply with a missing file fails before contacting the cluster", async () => {
  await withEnv(NO_CLUSTER, async () => {
    const r = await executeCaptured(buildProgram, ["apply", "-f", "/nonexistent/route.yaml"]);
    assert.deepEqual(r, {
      code: 1,
      stdout: "",
      stderr: 'error: the path "/nonexistent/route.yaml" does not exist\n',
    });
  });
});

test("version --client prints the client version in every format without a cluster", async () => {
  await withEnv(NO_CLUSTER, async () => {
    const json = await executeCaptured(buildProgram, ["version", "--client", "-o", "json"]);
    assert.equal(json.code, 0);
    assert.deepEqual(Object.keys(JSON.parse(json.stdout)), ["clientVersion"]);
    const yaml = await executeCaptured(buildProgram, ["version", "--client", "-o", "yaml"]);
    assert.match(yaml.stdout, /^clientVersion: v\d+\.\d+\.\d+\n$/);
  });
});

test("commands that need the cluster report a missing kubeconfig with exit 1", async () => {
  await withEnv(NO_CLUSTER, async () => {
    const r = await executeCaptured(buildProgram, ["get", "routes"]);
    assert.equal(r.code, 1);
    assert.equal(r.stdout, "");
    assert.match(r.stderr, /^error: .*\n$/);
  });
});

test("apply -f and delete -f refuse a manifest without a name before reaching for the cluster", async () => {
  const dir = await mkdtemp(join(tmpdir(), "edgectl-nameless-"));
  try {
    const file = join(dir, "route.yaml");
    await writeFile(file, "apiVersion: edgeproxy.io/v1alpha1\nkind: ProxyRoute\nmetadata: {}\n");
    await withEnv(NO_CLUSTER, async () => {
      for (const command of ["apply", "delete"]) {
        const r = await executeCaptured(buildProgram, [command, "-f", file]);
        assert.equal(r.code, 1, r.stderr);
        // The kubeconfig does not exist: naming the manifest's problem shows nothing was attempted.
        assert.equal(r.stderr, `error: ${file} (document 1): metadata.name is required\n`);
      }
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
