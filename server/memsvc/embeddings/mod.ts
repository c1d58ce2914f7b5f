/**
 * Text embeddings for memsvc's vector search: one `Embedder` interface, the offline built-in
 * hashing embedder (default), the built-in MiniLM model and an OpenAI-compatible client, chosen by `createEmbedder`.
 *
 * @example
 * const embedder = createEmbedder(config); // config parsed with embeddingsEnv
 * const [query] = await embedder.embed(["how do we deploy?"]);
 * const score = cosine(query, fromBytes(row.vector)); // only for rows whose model === embedder.id
 */
export { cosine, type Embedder, EmbedderError, fromBytes, normalize, toBytes } from "./embedder.ts";
export {
  ABBREVIATIONS,
  BUILTIN_DIMENSIONS,
  BUILTIN_ID,
  BuiltinEmbedder,
  embedText,
  stem,
  STOP_WORDS,
  tokens,
} from "./builtin.ts";
export { OpenAIEmbedder, type OpenAIEmbedderOptions } from "./openai.ts";
export { MINILM_DIMENSIONS, MINILM_ID, MiniLMEmbedder } from "./minilm.ts";
export { BGE_SMALL_DIMENSIONS, BGE_SMALL_ID, BgeSmallEmbedder } from "./bge_small.ts";
export { STATIC_DIMENSIONS, STATIC_ID, StaticEmbedder } from "./static_minilm.ts";
export {
  createEmbedder,
  type CreateEmbedderOptions,
  type EmbedderName,
  embedderName,
  EMBEDDERS,
  embeddingsEnv,
  embeddingsProblems,
  type EmbeddingsSettings,
} from "./config.ts";
