/**
 * What a released binary is made of besides this project's code, for its notices (notices.ts) and SBOM
 * (sbom.ts), taken from what the build actually used rather than from package.json: the npm packages
 * behind the bundle's inputs (Bun's metafile) and behind the embedded files (browser bundles' esbuild
 * inputs, node_modules assets), each as package-lock.json pins it; the Go modules linked into the wasm
 * renderers (`go list -deps` of their build, with go.sum's hashes) with the Go standard library; memsvc's model
 * and onnxruntime; and the Bun runtime of each target.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { cacheRoot, linkedModules } from "../testenv/go_build.ts";
import { WASM_OUT, WASM_RENDERERS } from "../lib/wasm.ts";
import { MINILM_OUT, MODEL_WHEEL, TOKENIZER_WHEEL } from "../lib/minilm.ts";
import { BGE_SMALL_JAR } from "../lib/bge_small.ts";
import { NATIVE_PLATFORMS, ORT_NATIVE_VERSION } from "../../server/memsvc/embeddings/minilm_assets.ts";
import { type Tool, WEB_APPS } from "../lib/tools.ts";
import { lockPackages, runtimePackage } from "./bun_runtime.ts";
import type { Target } from "./targets.ts";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

export interface ThirdParty {
  /** npm package, Go module, Python package (the model's wheels), or the runtime. */
  ecosystem: "npm" | "golang" | "pypi" | "maven" | "generic";
  name: string;
  version: string;
  /** SPDX license expression. */
  license: string;
  /** Package URL (purl). */
  purl: string;
  type: "library" | "framework" | "machine-learning-model";
  /** What it is for in the binary, shown in the notices. */
  role: string;
  /** Verbatim license and notice files of the package, or this project's statement where it ships none. */
  texts: { file: string; text: string }[];
  /** Digests the lock pins: SHA-512 for npm (integrity), the go.sum h1 hash for Go. */
  hashes: { alg: "SHA-512" | "SHA-256"; content: string }[];
}

const LICENSE_FILE = /^(licen[sc]e|copying|notice|copyright|patents)([.-].*)?$/i;

function licenseTexts(dir: string): { file: string; text: string }[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isFile() && LICENSE_FILE.test(e.name))
    .map((e) => e.name)
    .sort()
    .map((file) => ({ file, text: readFileSync(join(dir, file), "utf8").trim() }));
}

const statement = (file: string) => ({
  file,
  text: readFileSync(join(ROOT, "scripts", "release", "licenses", file), "utf8").trim(),
});

/** `node_modules/a/node_modules/@s/b/lib/x.js` => `node_modules/a/node_modules/@s/b`; undefined outside. */
export function packageKey(path: string): string | undefined {
  const at = path.lastIndexOf("node_modules/");
  if (at < 0) return undefined;
  const rest = path.slice(at + "node_modules/".length).split("/");
  const name = rest[0]!.startsWith("@") ? rest.slice(0, 2).join("/") : rest[0]!;
  return `${path.slice(0, at)}node_modules/${name}`;
}

/** package.json's license, in the old `licenses: [{type}]` form too (which the lock file does not record). */
function declaredLicense(dir: string): string | undefined {
  try {
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    if (typeof pkg.license === "string") return pkg.license;
    const types = (pkg.licenses ?? []).map((l: { type?: string }) => l.type).filter(Boolean);
    return types.length ? types.join(" OR ") : undefined;
  } catch {
    return undefined;
  }
}

const npmPurl = (name: string, version: string) =>
  `pkg:npm/${name.startsWith("@") ? `%40${name.slice(1)}` : name}@${version}`;
const hexOfIntegrity = (integrity: string) =>
  integrity.startsWith("sha512-") ? Buffer.from(integrity.slice(7), "base64").toString("hex") : undefined;

function npmComponents(paths: Iterable<string>, role: (key: string) => string): ThirdParty[] {
  const lock = lockPackages();
  const keys = new Set<string>();
  for (const path of paths) {
    const key = packageKey(path.replace(/^(\.\.\/)+/, ""));
    if (key) keys.add(key);
  }
  return [...keys].sort().map((key) => {
    const p = lock[key];
    if (!p) throw new Error(`${key} is bundled but package-lock.json has no entry for it`);
    const hex = hexOfIntegrity(p.integrity);
    const texts = licenseTexts(join(ROOT, key));
    return {
      ecosystem: "npm",
      name: p.name,
      version: p.version,
      license: p.license ?? declaredLicense(join(ROOT, key)) ??
        spdxFromText(texts.map((t) => t.text).join("\n")),
      purl: npmPurl(p.name, p.version),
      type: "library",
      role: role(key),
      texts,
      hashes: hex ? [{ alg: "SHA-512", content: hex }] : [],
    } satisfies ThirdParty;
  });
}

/** Go's module cache escapes upper-case letters as `!` + lower case. */
const escapeModule = (path: string) => path.replace(/[A-Z]/g, (c) => `!${c.toLowerCase()}`);

/** A module's license files, from the module cache the renderers were built with. */
const goLicenseTexts = (path: string, version: string) =>
  licenseTexts(join(cacheRoot(), "go", "mod", `${escapeModule(path)}@${version}`));

function goComponents(wasmFiles: string[]): ThirdParty[] {
  const seen = new Map<string, ThirdParty>();
  const goVersion = execFileSync("go", ["env", "GOVERSION"], {
    encoding: "utf8",
    env: { ...process.env, GOTOOLCHAIN: "local" },
  }).trim().replace(/^go/, "");
  const goRoot = execFileSync("go", ["env", "GOROOT"], {
    encoding: "utf8",
    env: { ...process.env, GOTOOLCHAIN: "local" },
  }).trim();
  seen.set("std", {
    ecosystem: "golang",
    name: "Go standard library",
    version: goVersion,
    license: "BSD-3-Clause",
    purl: `pkg:golang/std@go${goVersion}`,
    type: "library",
    role: "the Go runtime and standard library in the wasm renderers",
    texts: licenseTexts(goRoot),
    hashes: [],
  });
  for (const file of wasmFiles) {
    const component = WASM_RENDERERS.find((c) => c.output === file.split("/").pop());
    if (!component) throw new Error(`${file}: no wasm renderer builds it`);
    for (const m of linkedModules(component)) {
      if (seen.has(m.path)) continue;
      const texts = goLicenseTexts(m.path, m.version);
      seen.set(m.path, {
        ecosystem: "golang",
        name: m.path,
        version: m.version,
        license: spdxFromText(texts.map((t) => t.text).join("\n")),
        purl: `pkg:golang/${m.path}@${m.version}`,
        type: "library",
        role: `linked into ${file.split("/").pop()} (Helm's and Kustomize's renderers)`,
        texts,
        hashes: m.sum.startsWith("h1:")
          ? [{ alg: "SHA-256", content: Buffer.from(m.sum.slice(3), "base64").toString("hex") }]
          : [],
      });
    }
  }
  return [...seen.values()];
}

/** The SPDX id of the usual license texts Go modules carry; NOASSERTION for anything else. */
export function spdxFromText(text: string): string {
  if (/Apache License\s+Version 2\.0/i.test(text)) return "Apache-2.0";
  if (/Mozilla Public License,? version 2\.0/i.test(text)) return "MPL-2.0";
  if (/Redistribution and use in source and binary forms/i.test(text)) {
    return /Neither the name|names of its\s+contributors/i.test(text) ? "BSD-3-Clause" : "BSD-2-Clause";
  }
  if (/Permission is hereby granted, free of charge/i.test(text)) return "MIT";
  if (/Permission to use, copy, modify, and(\/or)? distribute this software for any/i.test(text)) {
    return "ISC";
  }
  return "NOASSERTION";
}

/**
 * memsvc's embedders: MiniLM's two wheels, bge-small's jar and onnxruntime (web in node_modules, node's
 * native runtime).
 */
function embedderComponents(targets: readonly Target[]): ThirdParty[] {
  const lock = lockPackages();
  const ortWeb = lock["node_modules/onnxruntime-web"]!;
  const model = (name: string, version: string, role: string): ThirdParty => ({
    ecosystem: "pypi",
    name,
    version,
    license: "Apache-2.0",
    purl: `pkg:pypi/${name}@${version}`,
    type: "machine-learning-model",
    role,
    texts: [statement("minilm.md")],
    hashes: [],
  });
  const ortNodeVersion = ORT_NATIVE_VERSION;
  return [
    model(
      MODEL_WHEEL.name,
      MODEL_WHEEL.version,
      "all-MiniLM-L6-v2, int8 ONNX weights (the built-in embedder)",
    ),
    model(TOKENIZER_WHEEL.name, TOKENIZER_WHEEL.version, "all-MiniLM-L6-v2's WordPiece vocabulary"),
    {
      ecosystem: "maven",
      name: `${BGE_SMALL_JAR.group}:${BGE_SMALL_JAR.artifact}`,
      version: BGE_SMALL_JAR.version,
      license: "MIT",
      purl: `pkg:maven/${BGE_SMALL_JAR.group}/${BGE_SMALL_JAR.artifact}@${BGE_SMALL_JAR.version}`,
      type: "machine-learning-model",
      role: "bge-small-en-v1.5, int8 ONNX weights (MEMSVC_EMBEDDER=builtin-bge-small)",
      texts: [statement("bge-small.md")],
      hashes: [{ alg: "SHA-256", content: BGE_SMALL_JAR.sha256 }],
    },
    {
      ecosystem: "npm",
      name: "onnxruntime-web",
      version: ortWeb.version,
      license: "MIT",
      purl: npmPurl("onnxruntime-web", ortWeb.version),
      type: "library",
      role: "ONNX Runtime's WebAssembly build (the embedder's portable runtime)",
      texts: [statement("onnxruntime.md")],
      hashes: hexOfIntegrity(ortWeb.integrity)
        ? [{ alg: "SHA-512", content: hexOfIntegrity(ortWeb.integrity)! }]
        : [],
    },
    ...(targets.some((t) => NATIVE_PLATFORMS[t])
      ? [{
        ecosystem: "npm" as const,
        name: "onnxruntime-node",
        version: ortNodeVersion,
        license: "MIT",
        purl: npmPurl("onnxruntime-node", ortNodeVersion),
        type: "library" as const,
        role:
          "ONNX Runtime's native library and Node.js binding (the embedder's fast runtime; Linux, macOS arm64)",
        texts: [statement("onnxruntime.md")],
        hashes: [],
      }]
      : []),
  ];
}

function bunComponents(targets: readonly Target[]): ThirdParty[] {
  return targets.map((target) => {
    const p = runtimePackage(target);
    const hex = hexOfIntegrity(p.integrity);
    return {
      ecosystem: "npm",
      name: p.name,
      version: p.version,
      license: "MIT AND LGPL-2.0-only",
      purl: npmPurl(p.name, p.version),
      type: "framework",
      role: `the Bun runtime of the ${target} executable`,
      texts: [statement("bun.md")],
      hashes: hex ? [{ alg: "SHA-512", content: hex }] : [],
    } satisfies ThirdParty;
  });
}

export interface BuildInputs {
  /** The bundle's inputs from Bun's metafile (repo-relative paths). */
  bundled: string[];
  /** The files embedded with --asset. */
  assets: readonly string[];
}

/**
 * The third-party parts of `tool`'s binaries for `targets`, in a stable order: the runtime, then npm
 * packages, the embedder's parts, the Go modules.
 */
export function thirdParty(tool: Tool, targets: readonly Target[], inputs: BuildInputs): ThirdParty[] {
  const webInputs = Object.entries(WEB_APPS)
    .filter(([, app]) => app.tool === tool)
    .flatMap(([name, app]) => {
      const file = join(ROOT, app.out, `${name}.inputs.json`);
      if (!existsSync(file)) throw new Error(`${file} is missing: bundle web/${name} first`);
      return JSON.parse(readFileSync(file, "utf8")) as string[];
    });
  const npm = npmComponents(
    [...inputs.bundled, ...inputs.assets, ...webInputs].filter((p) => !p.includes("onnxruntime-")),
    (key) =>
      inputs.bundled.some((p) => packageKey(p) === key)
        ? "bundled into the executable's code"
        : inputs.assets.some((p) => packageKey(p) === key)
        ? "embedded files"
        : "bundled into the embedded web app",
  );
  const usesMiniLM = inputs.assets.some((a) => a.startsWith(`${MINILM_OUT}/`));
  const wasm = inputs.assets.filter((a) => a.startsWith(`${WASM_OUT}/`) && a.endsWith(".wasm"));
  return [
    ...bunComponents(targets),
    ...npm,
    ...(usesMiniLM ? embedderComponents(targets) : []),
    ...(wasm.length ? goComponents(wasm) : []),
  ];
}
