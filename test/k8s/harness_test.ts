/** test/harness/k8s.ts's skip rule: skip locally without kube-apiserver, never in CI. */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { withEnv } from "../../internal/cli/testing.ts";
import { kubeApiServerAvailable, kubeApiServerSkip, startKubeApiServer } from "../harness/k8s.ts";

describe("kubeApiServerSkip", () => {
  const empty = mkdtempSync(join(tmpdir(), "k8s-empty-cache-"));
  const notBuilt = { K8S_TEST_CACHE: empty, K8S_TEST_KUBE_APISERVER: undefined };

  it("gives a reason to skip when kube-apiserver is not built", async () => {
    await withEnv({ ...notBuilt, CI: undefined }, () => {
      assert.equal(kubeApiServerAvailable(), false);
      assert.match(
        String(kubeApiServerSkip()),
        /kube-apiserver v1\.34\.4 not built: run `deno task k8s:build`/,
      );
      return Promise.resolve();
    });
  });

  it("never skips in CI, so a missing build fails the tests", async () => {
    await withEnv({ ...notBuilt, CI: "true" }, async () => {
      assert.equal(kubeApiServerSkip(), false);
      await assert.rejects(startKubeApiServer(), /kube-apiserver v1\.34\.4 is not built/);
    });
    rmSync(empty, { recursive: true, force: true });
  });
});
