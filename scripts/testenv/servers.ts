/**
 * The test servers and tools built from pinned Go modules (go_build.ts), each with its recipe folder
 * under test/. `TEST_SERVERS` is what the test command provisions before the tests run.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Component } from "./go_build.ts";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/**
 * What upstream's hack/lib/version.sh stamps into the binary; without it kube-apiserver reports
 * "v0.0.0-master+$Format:%H$" at /version and `kubectl version` fails to parse it.
 */
function kubeVersionVars(version: string): Record<string, string> {
  const [major, minor] = version.replace(/^v/, "").split(".");
  const vars: Record<string, string> = {};
  for (const pkg of ["k8s.io/component-base/version", "k8s.io/client-go/pkg/version"]) {
    vars[`${pkg}.gitVersion`] = version;
    vars[`${pkg}.gitMajor`] = major!;
    vars[`${pkg}.gitMinor`] = minor!;
    vars[`${pkg}.gitTreeState`] = "clean";
    vars[`${pkg}.buildDate`] = "1970-01-01T00:00:00Z";
  }
  return vars;
}

/** Kubernetes release of the kube-apiserver recipe; test/k8s/kube-apiserver/go.mod pins the same. */
const KUBERNETES_VERSION = "v1.34.4";

export const KUBE_APISERVER: Component = {
  name: "kube-apiserver",
  version: KUBERNETES_VERSION,
  recipeDir: join(ROOT, "test", "k8s", "kube-apiserver"),
  pkg: "k8s.io/kubernetes/cmd/kube-apiserver",
  linkerVars: kubeVersionVars(KUBERNETES_VERSION),
};

export const ETCD: Component = {
  name: "etcd",
  version: "v3.5.35",
  recipeDir: join(ROOT, "test", "k8s", "etcd"),
  pkg: "go.etcd.io/etcd/server/v3",
};

/** Everything the tests need, in build order (the apiserver first: later builds reuse its Go cache). */
export const TEST_SERVERS: Component[] = [KUBE_APISERVER, ETCD];
