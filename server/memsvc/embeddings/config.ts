/**
 * Which embedder memsvc uses: MEMSVC_EMBEDDER picks one of EMBEDDERS. Unset, it follows
 * MEMSVC_EMBEDDINGS_URL: an OpenAI-compatible endpoint when one is set, else `builtin-static`
 * (MiniLM's token vectors distilled into a table, static_minilm.ts: offline, deterministic, +6 points
 * of recall@5 on the conversational set over the hashing embedder at about its cost per text; its
 * dense vectors are scanned by a SIMD kernel, memory/simd/). `builtin-hash` (hashed n-grams) is the
 * smallest and fastest; `builtin-minilm` and `builtin-bge-small` are in-process neural models (bge-small
 * the stronger on conversations, at a model run per text: bge_small.ts). A store made by another
 * embedder is re-embedded in the background at start (memory/vector_backlog.ts, `recover`).
 */
import { z } from "zod";
import { ConfigError } from "../../../internal/config/mod.ts";
import { type Logger, silentLogger } from "../../../internal/log/mod.ts";
import { BuiltinEmbedder } from "./builtin.ts";
import type { Embedder } from "./embedder.ts";
import { MiniLMEmbedder } from "./minilm.ts";
import { BgeSmallEmbedder } from "./bge_small.ts";
import { OpenAIEmbedder } from "./openai.ts";
import { StaticEmbedder } from "./static_minilm.ts";

/** The embedding variables, to merge into memsvc's environment schema (`memsvcEnv.extend(embeddingsEnv.shape)`). */
/** MEMSVC_EMBEDDER's values. */
export const EMBEDDERS = [
  "builtin-hash",
  "builtin-static",
  "builtin-minilm",
  "builtin-bge-small",
  "openai",
] as const;
export type EmbedderName = (typeof EMBEDDERS)[number];

export const embeddingsEnv = z.object({
  /**
   * builtin-static (MiniLM's token vectors, averaged: the default), builtin-hash (hashed n-grams:
   * smallest and fastest), builtin-minilm (all-MiniLM-L6-v2 int8, in process), builtin-bge-small
   * (bge-small-en-v1.5 int8, in process: better recall on conversations, a model run per text) or openai
   * (MEMSVC_EMBEDDINGS_URL's service). Unset: openai when a URL is set, else builtin-static.
   */
  MEMSVC_EMBEDDER: z.enum(EMBEDDERS, { message: `must be one of ${EMBEDDERS.join(", ")}` }).optional(),
  /**
   * API base of an OpenAI-compatible service, e.g. https://api.openai.com/v1 or
   * http://localhost:11434/v1; requests go to <base>/embeddings. Unset: the built-in embedder.
   */
  MEMSVC_EMBEDDINGS_URL: z.url({ protocol: /^https?$/, message: "must be an http:// or https:// URL" })
    .optional(),
  /** Model name, e.g. text-embedding-3-small; required with MEMSVC_EMBEDDINGS_URL. */
  MEMSVC_EMBEDDINGS_MODEL: z.string().trim().min(1, "must not be empty").optional(),
  /** Sent as a bearer token; local servers often need none. */
  MEMSVC_EMBEDDINGS_API_KEY: z.string().min(1, "must not be empty").optional(),
  /** Vector length to request; unset: the model's own, learnt from the first response. */
  MEMSVC_EMBEDDINGS_DIMENSIONS: z.coerce.number({ message: "must be a number" }).int("must be a whole number")
    .positive("must be > 0").optional(),
});

export type EmbeddingsSettings = z.output<typeof embeddingsEnv>;

/**
 * Rules that tie the variables together, each naming the variable to change. Settings that would
 * be silently ignored (a model or key without a URL) are refused rather than guessed at.
 */
export function embeddingsProblems(settings: EmbeddingsSettings): string[] {
  const chosen = settings.MEMSVC_EMBEDDER;
  if (chosen === "openai" && !settings.MEMSVC_EMBEDDINGS_URL) {
    return ["MEMSVC_EMBEDDER=openai needs MEMSVC_EMBEDDINGS_URL (for example https://api.openai.com/v1)"];
  }
  if (chosen && chosen !== "openai" && settings.MEMSVC_EMBEDDINGS_URL) {
    return [
      `MEMSVC_EMBEDDINGS_URL has no effect with MEMSVC_EMBEDDER=${chosen} (unset the URL, or set ` +
      "MEMSVC_EMBEDDER=openai to use it)",
    ];
  }
  if (settings.MEMSVC_EMBEDDINGS_URL) {
    return settings.MEMSVC_EMBEDDINGS_MODEL ? [] : [
      "MEMSVC_EMBEDDINGS_MODEL is required when MEMSVC_EMBEDDINGS_URL is set (for example text-embedding-3-small)",
    ];
  }
  return (["MEMSVC_EMBEDDINGS_MODEL", "MEMSVC_EMBEDDINGS_API_KEY", "MEMSVC_EMBEDDINGS_DIMENSIONS"] as const)
    .filter((name) => settings[name] !== undefined)
    .map((name) =>
      `${name} has no effect without MEMSVC_EMBEDDINGS_URL (set the URL, e.g. https://api.openai.com/v1, ` +
      "or unset it to use the built-in embedder)"
    );
}

export interface CreateEmbedderOptions {
  fetch?: typeof globalThis.fetch;
  log?: Logger;
  /** The data directory: builtin-static keeps its decompressed table there, mapped (static_minilm.ts). */
  dataDir?: string;
}

/** The embedder the settings choose (MEMSVC_EMBEDDER, else by MEMSVC_EMBEDDINGS_URL). */
export function embedderName(settings: EmbeddingsSettings): EmbedderName {
  return settings.MEMSVC_EMBEDDER ?? (settings.MEMSVC_EMBEDDINGS_URL ? "openai" : "builtin-static");
}

/**
 * @example
 * const embedder = createEmbedder(loadEnv(embeddingsEnv)); // StaticEmbedder unless a URL is set
 * @throws ConfigError naming the variable, e.g. MEMSVC_EMBEDDINGS_MODEL missing with a URL.
 */
export function createEmbedder(settings: EmbeddingsSettings, options: CreateEmbedderOptions = {}): Embedder {
  const problems = embeddingsProblems(settings);
  if (problems.length) throw new ConfigError(problems);
  const name = embedderName(settings);
  if (name === "builtin-hash") return new BuiltinEmbedder();
  if (name === "builtin-static") return new StaticEmbedder({ dir: options.dataDir });
  if (name === "builtin-minilm") return new MiniLMEmbedder();
  if (name === "builtin-bge-small") return new BgeSmallEmbedder();
  return new OpenAIEmbedder({
    url: settings.MEMSVC_EMBEDDINGS_URL!,
    model: settings.MEMSVC_EMBEDDINGS_MODEL!,
    apiKey: settings.MEMSVC_EMBEDDINGS_API_KEY,
    dimensions: settings.MEMSVC_EMBEDDINGS_DIMENSIONS,
    fetch: options.fetch,
    log: (options.log ?? silentLogger).child({ component: "embeddings" }),
  });
}
