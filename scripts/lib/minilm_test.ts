import assert from "node:assert/strict";
import { test } from "node:test";
import { vocabFromTokenizerJson } from "./minilm.ts";

test("tokenizer.json's WordPiece vocabulary becomes vocab.txt in id order", () => {
  const json = JSON.stringify({ model: { type: "WordPiece", vocab: { "[UNK]": 1, "[PAD]": 0, "##s": 2 } } });
  assert.equal(vocabFromTokenizerJson(json), "[PAD]\n[UNK]\n##s\n");
});

test("a vocabulary with holes or another model type is refused", () => {
  assert.throws(
    () => vocabFromTokenizerJson(JSON.stringify({ model: { type: "WordPiece", vocab: { a: 0, b: 2 } } })),
    /not 0..n-1/,
  );
  assert.throws(
    () => vocabFromTokenizerJson(JSON.stringify({ model: { type: "BPE", vocab: {} } })),
    /WordPiece/,
  );
});
