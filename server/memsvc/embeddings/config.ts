/**
 * Which embedder memsvc uses. With no MEMSVC_EMBEDDINGS_URL, the built-in hashing embedder
 * (offline, deterministic); with one, an OpenAI-compatible endpoint.
 */
import { z } from "zod";
import { ConfigError } from "../../../internal/config/mod.ts";
import { type Logger, silentLogger } from "../../../internal/log/mod.ts";
import { BuiltinEmbedder } from "./builtin.ts";
import type { Embedder } from "./embedder.ts";
import { OpenAIEmbedder } from "./openai.ts";

/** The embedding variables, to merge into memsvc's environment schema (`memsvcEnv.extend(embeddingsEnv.shape)`). */
export const embeddingsEnv = z.object({
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
}

/**
 * @example
 * const embedder = createEmbedder(loadEnv(embeddingsEnv)); // BuiltinEmbedder unless a URL is set
 * @throws ConfigError naming the variable, e.g. MEMSVC_EMBEDDINGS_MODEL missing with a URL.
 */
export function createEmbedder(settings: EmbeddingsSettings, options: CreateEmbedderOptions = {}): Embedder {
  const problems = embeddingsProblems(settings);
  if (problems.length) throw new ConfigError(problems);
  const url = settings.MEMSVC_EMBEDDINGS_URL;
  if (!url) return new BuiltinEmbedder();
  return new OpenAIEmbedder({
    url,
    model: settings.MEMSVC_EMBEDDINGS_MODEL!,
    apiKey: settings.MEMSVC_EMBEDDINGS_API_KEY,
    dimensions: settings.MEMSVC_EMBEDDINGS_DIMENSIONS,
    fetch: options.fetch,
    log: (options.log ?? silentLogger).child({ component: "embeddings" }),
  });
}
