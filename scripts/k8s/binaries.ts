/**
 * Where the Kubernetes test servers come from: pinned Go module recipes in test/k8s/<name>/go.mod,
 * built with the machine's Go toolchain through the module proxy into a cache outside the repo.
 *
 * Cache layout (root = $K8S_TEST_CACHE, default ${XDG_CACHE_HOME:-~/.cache}/toolkit-k8s):
 *
 *   <root>/<name>-<version>/src/          copy of the recipe, where `go` runs
 *   <root>/<name>-<version>/bin/<name>    the binary
 *   <root>/<name>-<version>/bin/<name>.recipe   sha256 of the recipe the binary was built from
 *   <root>/go/mod, <root>/go/build        GOMODCACHE and GOCACHE, shared by all components
 *
 * The Go caches are private to this root so that its size is measurable and it can be removed in
 * one go (module cache files are read-only: `chmod -R u+w <root> && rm -rf <root>`).
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

export interface Component {
  name: "kube-apiserver" | "etcd";
  /** Upstream release the recipe pins; part of the cache directory name. */
  version: string;
  /** Folder holding go.mod (and go.sum once generated) of the wrapper module. */
  recipeDir: string;
  /** Main package to build. */
  pkg: string;
  /** -X linker settings (package.var => value). */
  linkerVars?: Record<string, string>;
}

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

export function cacheRoot(): string {
  const env = process.env.K8S_TEST_CACHE;
  if (env) return env;
  const xdg = process.env.XDG_CACHE_HOME || join(homedir(), ".cache");
  return join(xdg, "toolkit-k8s");
}

export function componentDir(c: Component): string {
  return join(cacheRoot(), `${c.name}-${c.version}`);
}

export function binaryPath(c: Component): string {
  return join(componentDir(c), "bin", c.name);
}

function recipeFiles(c: Component): string[] {
  return ["go.mod", "go.sum"].filter((f) => existsSync(join(c.recipeDir, f)));
}

/** sha256 over the recipe files and linker flags, so an edited recipe is rebuilt even without a version change. */
export function recipeHash(c: Component): string {
  const hash = createHash("sha256");
  hash.update(JSON.stringify(linkerFlags(c))).update("\0");
  for (const f of recipeFiles(c)) hash.update(f).update("\0").update(readFileSync(join(c.recipeDir, f)));
  return hash.digest("hex");
}

/** The cached binary when it exists and was built from the current recipe. */
export function cachedBinary(c: Component): string | undefined {
  const bin = binaryPath(c);
  const stamp = `${bin}.recipe`;
  if (!existsSync(bin) || !existsSync(stamp)) return undefined;
  return readFileSync(stamp, "utf8").trim() === recipeHash(c) ? bin : undefined;
}

function goEnv(): NodeJS.ProcessEnv {
  const root = cacheRoot();
  return {
    ...process.env,
    GOMODCACHE: join(root, "go", "mod"),
    GOCACHE: join(root, "go", "build"),
    GOFLAGS: "-mod=mod",
    // Use the installed toolchain; never download another one.
    GOTOOLCHAIN: "local",
    // Static binaries, as upstream builds its server binaries.
    CGO_ENABLED: "0",
  };
}

function go(args: string[], cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn("go", args, { cwd, env: goEnv(), stdio: ["ignore", "inherit", "inherit"] });
    child.once("error", (err) =>
      reject(
        (err as NodeJS.ErrnoException).code === "ENOENT"
          ? new Error("go not found on PATH: a Go toolchain (>= 1.24) is needed to build the test servers")
          : err,
      ));
    child.once(
      "exit",
      (code, signal) =>
        code === 0
          ? resolve()
          : reject(new Error(`go ${args.join(" ")} failed (${signal ?? `exit ${code}`})`)),
    );
  });
}

function linkerFlags(c: Component): string {
  const vars = Object.entries(c.linkerVars ?? {}).map(([k, v]) => `-X '${k}=${v}'`);
  return ["-s", "-w", ...vars].join(" ");
}

export interface BuildResult {
  path: string;
  cached: boolean;
  seconds: number;
}

/**
 * Returns the cached binary, or builds it: copies the recipe to <cache>/src, runs `go mod tidy` and
 * `go build -trimpath -ldflags='-s -w'`, writes the binary atomically and stamps it with the recipe hash.
 */
export async function ensureBinary(
  c: Component,
  log: (line: string) => void = (l) => console.error(l),
): Promise<BuildResult> {
  const started = performance.now();
  const cached = cachedBinary(c);
  if (cached) return { path: cached, cached: true, seconds: 0 };
  const dir = componentDir(c);
  const src = join(dir, "src");
  const bin = binaryPath(c);
  mkdirSync(src, { recursive: true });
  mkdirSync(dirname(bin), { recursive: true });
  rmSync(join(src, "go.sum"), { force: true });
  for (const f of recipeFiles(c)) copyFileSync(join(c.recipeDir, f), join(src, f));
  log(`building ${c.name} ${c.version} in ${dir} (a cold build takes many minutes)`);
  // `go build` is silent for minutes: say it is still working, so CI logs show progress.
  const heartbeat = setInterval(() => {
    log(`  ... still building ${c.name} (${((performance.now() - started) / 1000).toFixed(0)} s)`);
  }, 30_000);
  const tmp = `${bin}.tmp-${process.pid}`;
  try {
    log(`  go mod tidy`);
    await go(["mod", "tidy"], src);
    log(`  go build ${c.pkg}`);
    await go(["build", "-trimpath", `-ldflags=${linkerFlags(c)}`, "-o", tmp, c.pkg], src);
    renameSync(tmp, bin);
  } finally {
    clearInterval(heartbeat);
    rmSync(tmp, { force: true });
  }
  writeFileSync(`${bin}.recipe`, `${recipeHash(c)}\n`);
  return { path: bin, cached: false, seconds: (performance.now() - started) / 1000 };
}
