import assert from "node:assert/strict";
import { test } from "node:test";
import { kubernetesVersion } from "./version.ts";

test("the server's version is printed as v<major>.<minor>.<patch>", () => {
  assert.equal(kubernetesVersion({ major: "1", minor: "34", gitVersion: "v1.34.4" }), "v1.34.4");
  assert.equal(kubernetesVersion({ major: "1", minor: "30", gitVersion: "v1.30.2+k3s1" }), "v1.30.2");
  assert.equal(kubernetesVersion({ major: "1", minor: "29", gitVersion: "v1.29.8-eks-a737599" }), "v1.29.8");
  assert.equal(kubernetesVersion({ major: "1", minor: "28+", gitVersion: "unknown" }), "v1.28.0");
});
