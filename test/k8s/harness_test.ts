/** test/harness/k8s.ts never skips: a missing server fails, naming the command that builds it. */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { withEnv } from "../../internal/cli/testing.ts";
import { kubeBinaries, startKubeApiServer, workloadBinaries } from "../harness/k8s.ts";

describe("the Kubernetes harness without its binaries", () => {
  const empty = mkdtempSync(join(tmpdir(), "k8s-empty-cache-"));
  const notBuilt = { K8S_TEST_CACHE: empty, K8S_TEST_KUBE_APISERVER: undefined };

  it("fails naming the command that builds kube-apiserver", async () => {
    await withEnv(notBuilt, async () => {
      assert.throws(
        () => kubeBinaries(),
        /kube-apiserver v1\.34\.4 is not built: run `deno task testenv:build kube-apiserver`/,
      );
      await assert.rejects(startKubeApiServer(), /deno task testenv:build kube-apiserver/);
    });
  });

  it("fails naming the workload servers that are missing", async () => {
    await withEnv(notBuilt, () => {
      assert.throws(() => workloadBinaries(), /kube-controller-manager v1\.34\.4 is not built/);
      return Promise.resolve();
    });
    rmSync(empty, { recursive: true, force: true });
  });
});
