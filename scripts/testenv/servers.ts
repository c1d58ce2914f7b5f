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

/** Kubernetes release of the recipe in test/k8s/kubernetes/go.mod, which pins the same. */
const KUBERNETES_VERSION = "v1.34.4";

/** One binary of k8s.io/kubernetes; all three share the recipe (and so Go's build cache). */
function kubernetesBinary(name: string): Component {
  return {
    name,
    version: KUBERNETES_VERSION,
    recipeDir: join(ROOT, "test", "k8s", "kubernetes"),
    pkg: `k8s.io/kubernetes/cmd/${name}`,
    linkerVars: kubeVersionVars(KUBERNETES_VERSION),
  };
}

export const KUBE_APISERVER = kubernetesBinary("kube-apiserver");
/** The workload controllers (Deployments, Jobs, garbage collection, ...) for `workloads: true`. */
export const KUBE_CONTROLLER_MANAGER = kubernetesBinary("kube-controller-manager");
export const KUBE_SCHEDULER = kubernetesBinary("kube-scheduler");

export const ETCD: Component = {
  name: "etcd",
  version: "v3.5.35",
  recipeDir: join(ROOT, "test", "k8s", "etcd"),
  pkg: "go.etcd.io/etcd/server/v3",
};

/** kwok's controller: fake nodes that run Pods through the stages in test/k8s/kwok/stages.yaml. */
export const KWOK: Component = {
  name: "kwok",
  version: "v0.8.0",
  recipeDir: join(ROOT, "test", "k8s", "kwok"),
  pkg: "sigs.k8s.io/kwok/cmd/kwok",
  linkerVars: { "sigs.k8s.io/kwok/pkg/consts.Version": "0.8.0" },
};

/** The real sops binary: it encrypts the files the SOPS decryption tests read (controller/gitsync/sops). */
export const SOPS: Component = {
  name: "sops",
  version: "v3.13.3",
  recipeDir: join(ROOT, "test", "sops"),
  pkg: "github.com/getsops/sops/v3/cmd/sops",
  linkerVars: { "github.com/getsops/sops/v3/version.Version": "3.13.3" },
};

/** The real helm binary: renders and lints gitsync's chart (deploy/gitsync/chart) in the tests. */
export const HELM: Component = {
  name: "helm",
  version: "v3.16.4",
  recipeDir: join(ROOT, "test", "helm"),
  pkg: "helm.sh/helm/v3/cmd/helm",
  linkerVars: { "helm.sh/helm/v3/internal/version.version": "v3.16.4" },
};

/** The real OCI distribution registry: image automation scans it (controller/gitsync/images). */
export const REGISTRY: Component = {
  name: "registry",
  version: "v3.1.2",
  recipeDir: join(ROOT, "test", "registry"),
  pkg: "github.com/distribution/distribution/v3/cmd/registry",
  linkerVars: { "github.com/distribution/distribution/v3/version.version": "v3.1.2" },
};

/**
 * Jaeger v1 all-in-one (in-memory storage): the query API `edgectl trace` reads, and an OTLP
 * collector (gRPC and HTTP) tests send spans to; started by test/harness/jaeger.ts.
 */
export const JAEGER: Component = {
  name: "jaeger",
  version: "v1.76.0",
  recipeDir: join(ROOT, "test", "edgectl", "jaeger"),
  pkg: "github.com/jaegertracing/jaeger/cmd/all-in-one",
  linkerVars: { "github.com/jaegertracing/jaeger/internal/version.latestVersion": "v1.76.0" },
};

/**
 * crane (go-containerregistry's registry client): the release pushes its OCI images with it; the image
 * tests push to the test registry and pull back with it.
 */
export const CRANE: Component = {
  name: "crane",
  version: "v0.22.1",
  recipeDir: join(ROOT, "test", "crane"),
  pkg: "github.com/google/go-containerregistry/cmd/crane",
  linkerVars: { "github.com/google/go-containerregistry/cmd/crane/cmd.Version": "v0.22.1" },
};

/** actionlint: lints .github/workflows in the tests (test/release/workflows_test.ts). */
export const ACTIONLINT: Component = {
  name: "actionlint",
  version: "v1.7.12",
  recipeDir: join(ROOT, "test", "actionlint"),
  pkg: "github.com/rhysd/actionlint/cmd/actionlint",
  linkerVars: { "github.com/rhysd/actionlint.version": "1.7.12" },
};

/** Everything the tests need, in build order (the apiserver first: later builds reuse its Go cache). */
export const TEST_SERVERS: Component[] = [
  KUBE_APISERVER,
  KUBE_CONTROLLER_MANAGER,
  KUBE_SCHEDULER,
  ETCD,
  KWOK,
  SOPS,
  HELM,
  REGISTRY,
  JAEGER,
  CRANE,
  ACTIONLINT,
];
