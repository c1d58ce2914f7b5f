/**
 * Builds from pinned Go module recipes with the machine's Go toolchain through the module proxy, into a
 * cache outside the repo: the test servers (a wrapper go.mod per component under test/, listed in
 * servers.ts) and the WebAssembly renderers (wasm/<module>/, listed in scripts/lib/wasm.ts).
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
import { execFileSync, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";

export interface Component {
  /** Binary name, and the cache directory's prefix. */
  name: string;
  /** Upstream release the recipe pins; part of the cache directory name. */
  version: string;
  /** Folder holding go.mod (and go.sum once generated) of the wrapper module. */
  recipeDir: string;
  /** Main package to build. */
  pkg: string;
  /** -X linker settings (package.var => value). */
  linkerVars?: Record<string, string>;
  /** Cross-compile target; default the host. */
  target?: { goos: string; goarch: string };
  /** File name of the output in bin/; default `name`. */
  output?: string;
  /**
   * Go build overlay: a file of a dependency (its import path, e.g. `example.com/m/pkg/x.go`) => the
   * recipe's replacement (path relative to recipeDir). Go refuses overlays of the module cache, so such
   * a component is built from a vendor folder (`go mod vendor`, in the cache, never in the repo).
   */
  overlay?: Record<string, string>;
}

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
  return join(componentDir(c), "bin", c.output ?? c.name);
}

/** go.mod, go.sum and the recipe's own Go sources (a wasm module has its main package there). */
function recipeFiles(c: Component): string[] {
  return readdirSync(c.recipeDir)
    .filter((f) => f === "go.mod" || f === "go.sum" || f.endsWith(".go"))
    .sort();
}

/** sha256 over the recipe files and linker flags, so an edited recipe is rebuilt even without a version change. */
export function recipeHash(c: Component): string {
  const hash = createHash("sha256");
  hash.update(JSON.stringify(linkerFlags(c))).update("\0");
  if (c.target) hash.update(JSON.stringify(c.target)).update("\0");
  for (const f of recipeFiles(c)) hash.update(f).update("\0").update(readFileSync(join(c.recipeDir, f)));
  for (const [target, file] of Object.entries(c.overlay ?? {}).sort()) {
    hash.update(target).update("\0").update(readFileSync(join(c.recipeDir, file)));
  }
  return hash.digest("hex");
}

/** The cached binary when it exists and was built from the current recipe. */
export function cachedBinary(c: Component): string | undefined {
  const bin = binaryPath(c);
  const stamp = `${bin}.recipe`;
  if (!existsSync(bin) || !existsSync(stamp)) return undefined;
  return readFileSync(stamp, "utf8").trim() === recipeHash(c) ? bin : undefined;
}

function goEnv(target?: Component["target"]): NodeJS.ProcessEnv {
  const root = cacheRoot();
  return {
    ...process.env,
    ...(target ? { GOOS: target.goos, GOARCH: target.goarch } : {}),
    GOMODCACHE: join(root, "go", "mod"),
    GOCACHE: join(root, "go", "build"),
    GOFLAGS: "-mod=mod",
    // Use the installed toolchain; never download another one.
    GOTOOLCHAIN: "local",
    // Static binaries, as upstream builds its server binaries.
    CGO_ENABLED: "0",
  };
}

/**
 * Runs go quietly: `go mod tidy` names every module it downloads (hundreds of lines), which buries
 * the progress lines; the output is kept and its end shown only when the command fails.
 */
function go(args: string[], cwd: string, target?: Component["target"]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn("go", args, { cwd, env: goEnv(target), stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    const keep = (d: Buffer) => (output = (output + d).slice(-16_384));
    child.stdout!.on("data", keep);
    child.stderr!.on("data", keep);
    child.once("error", (err) =>
      reject(
        (err as NodeJS.ErrnoException).code === "ENOENT"
          ? new Error("go not found on PATH: a Go toolchain (>= 1.24) is needed to build the test servers")
          : err,
      ));
    child.once("close", (code, signal) => {
      if (code === 0) return resolve();
      const last = output.trimEnd().split("\n").slice(-20).join("\n");
      reject(new Error(`go ${args.join(" ")} failed (${signal ?? `exit ${code}`}):\n${last}`));
    });
  });
}

function linkerFlags(c: Component): string {
  const vars = Object.entries(c.linkerVars ?? {}).map(([k, v]) => `-X '${k}=${v}'`);
  return ["-s", "-w", ...vars].join(" ");
}

/**
 * Writes Go's overlay file for the component into its build folder, with copies of the overlay's files
 * beside it (`src/_overlay/`): the cache must not point into the checkout that built it, which may be
 * gone when a later checkout reads the build's modules (a deleted worktree broke `deno task release`).
 */
function writeOverlay(c: Component, src: string): string {
  const copies = join(src, "_overlay");
  mkdirSync(copies, { recursive: true });
  const replace = Object.fromEntries(
    Object.entries(c.overlay ?? {}).map(([target, file]) => {
      const copy = join(copies, file.replaceAll("/", "_"));
      copyFileSync(join(c.recipeDir, file), copy);
      return [join(src, "vendor", target), copy];
    }),
  );
  const file = join(src, "overlay.json");
  writeFileSync(file, JSON.stringify({ Replace: replace }, null, 2));
  return file;
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
  // Two processes building the same component (the test command's build and a release, say) would share
  // its src/ and vendor/ folders and break each other's `go mod vendor`: the second waits for the first.
  const release = await lockComponent(c, log);
  try {
    const built = cachedBinary(c);
    if (built) return { path: built, cached: true, seconds: 0 };
    return await build(c, log, started);
  } finally {
    release();
  }
}

/** An exclusive lock on a component's cache folder: a lock file naming the holder's pid. */
export async function lockComponent(c: Component, log: (line: string) => void): Promise<() => void> {
  const lock = `${componentDir(c)}.lock`;
  mkdirSync(dirname(lock), { recursive: true });
  let said = false;
  for (;;) {
    try {
      writeFileSync(lock, String(process.pid), { flag: "wx" });
      return () => rmSync(lock, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
    let holder = 0;
    try {
      holder = Number(readFileSync(lock, "utf8"));
    } catch {
      continue; // released in between
    }
    let alive = false;
    try {
      process.kill(holder, 0);
      alive = holder > 0;
    } catch { /* the holder is gone: its lock is stale */ }
    if (!alive) {
      rmSync(lock, { force: true });
      continue;
    }
    if (!said) log(`waiting for process ${holder}, which is building ${c.name} ${c.version}`);
    said = true;
    await new Promise((r) => setTimeout(r, 1000));
  }
}

async function build(c: Component, log: (line: string) => void, started: number): Promise<BuildResult> {
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
    checkPinnedVersion(c, src);
    if (c.overlay) {
      rmSync(join(src, "vendor"), { recursive: true, force: true });
      await go(["mod", "vendor"], src);
    }
    const overlay = c.overlay ? ["-mod=vendor", `-overlay=${writeOverlay(c, src)}`] : [];
    log(`  go build ${c.pkg}`);
    await go(
      ["build", "-trimpath", `-ldflags=${linkerFlags(c)}`, ...overlay, "-o", tmp, c.pkg],
      src,
      c.target,
    );
    renameSync(tmp, bin);
  } finally {
    clearInterval(heartbeat);
    rmSync(tmp, { force: true });
  }
  writeFileSync(`${bin}.recipe`, `${recipeHash(c)}\n`);
  return { path: bin, cached: false, seconds: (performance.now() - started) / 1000 };
}

/**
 * `go mod tidy` drops a requirement that no package of the recipe imports, and `-mod=mod` then builds the
 * newest version instead (helm "v3.16.4" was built as v3.22.0 that way). A recipe keeps its module with a
 * `tool` directive; this refuses a build whose package resolves to any version but the pinned one.
 */
function checkPinnedVersion(c: Component, src: string): void {
  const format = "{{with .Module}}{{.Main}} {{.Path}} {{.Version}}{{end}}";
  const out = execFileSync("go", ["list", "-f", format, c.pkg], {
    cwd: src,
    env: goEnv(c.target),
    encoding: "utf8",
  });
  const [main, path, version] = out.trim().split(" ");
  if (main === "true") return; // the recipe's own package (the wasm renderers)
  if (!version || !c.version.endsWith(version)) {
    throw new Error(
      `${c.name}: ${c.pkg} resolves to ${path} ${version ?? "(none)"}, not ${c.version}; ` +
        `keep the module required in ${c.recipeDir}/go.mod with a \`tool ${c.pkg}\` directive`,
    );
  }
}

/** A module the built binary links: path, version, and go.sum's h1: hash of its content. */
export interface LinkedModule {
  path: string;
  version: string;
  sum: string;
}

/**
 * The modules whose packages a built component links, as `go list -deps` sees the build (same target,
 * vendor folder and overlay; Go writes no build information into wasm files), with go.sum's hashes.
 */
export function linkedModules(c: Component): LinkedModule[] {
  const src = join(componentDir(c), "src");
  // Written again: a cache built before the overlay's files were copied into it points at its checkout.
  const flags = c.overlay ? ["-mod=vendor", `-overlay=${writeOverlay(c, src)}`] : [];
  const format = "{{with .Module}}{{if not .Main}}{{.Path}} {{.Version}}" +
    "{{with .Replace}} {{.Path}} {{.Version}}{{end}}{{end}}{{end}}";
  const out = execFileSync("go", ["list", "-deps", ...flags, "-f", format, c.pkg], {
    cwd: src,
    env: goEnv(c.target),
    encoding: "utf8",
    maxBuffer: 64 << 20,
  });
  const sums = new Map<string, string>();
  for (const line of readFileSync(join(src, "go.sum"), "utf8").split("\n")) {
    const [path, version, sum] = line.split(" ");
    if (path && version && sum && !version.endsWith("/go.mod")) sums.set(`${path} ${version}`, sum);
  }
  const seen = new Map<string, LinkedModule>();
  for (const line of out.split("\n")) {
    const f = line.trim().split(" ");
    if (f.length < 2) continue;
    // A replaced module: the replacement is what is linked.
    const [path, version] = f.length >= 4 && f[3] ? [f[2]!, f[3]] : [f[0]!, f[1]!];
    seen.set(path, { path, version, sum: sums.get(`${path} ${version}`) ?? "" });
  }
  return [...seen.values()].sort((a, b) => (a.path < b.path ? -1 : 1));
}
