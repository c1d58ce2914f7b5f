import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { basicTokens, WordPieceTokenizer } from "./wordpiece.ts";

const VOCAB = new URL("../../../.cache/minilm/minilm-l6-vocab.txt", import.meta.url);
/** Token ids from Hugging Face's tokenizer (test/fixtures/memsvc_minilm_reference.py). */
const REFERENCE = JSON.parse(
  readFileSync(new URL("../../../test/fixtures/memsvc_minilm_reference.json", import.meta.url), "utf8"),
) as { cases: { text: string; ids: number[] }[] };

test("basic tokens: lower-cased, accents stripped, punctuation and CJK split off", () => {
  assert.deepEqual(basicTokens("Héllo, World!"), ["hello", ",", "world", "!"]);
  assert.deepEqual(basicTokens("don't\tstop\u0000"), ["don", "'", "t", "stop"]);
  assert.deepEqual(basicTokens("東京 ok"), ["東", "京", "ok"]);
  assert.deepEqual(basicTokens("v2.3 $5"), ["v2", ".", "3", "$", "5"]);
  assert.deepEqual(basicTokens(" \n "), []);
});

test("basic tokens: every ASCII character is what the Unicode classes say (its fast path)", () => {
  for (let cp = 1; cp < 0x80; cp++) {
    const ch = String.fromCharCode(cp);
    const lower = ch.toLowerCase();
    const expected = /\s/u.test(ch)
      ? ["a", "b"]
      : /[\p{Cc}\p{Cf}]/u.test(ch)
      ? ["ab"]
      : /\p{P}/u.test(ch) || !/[\p{L}\p{N}]/u.test(ch)
      ? ["a", ch, "b"]
      : [`a${lower}b`];
    assert.deepEqual(basicTokens(`a${ch}b`), expected, `U+${cp.toString(16)}`);
  }
});

test("wordpiece: longest match first with ## continuations, [UNK] for what has none", () => {
  const vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "un", "##aff", "##able", "aff", "!"].join("\n");
  const t = new WordPieceTokenizer(vocab);
  assert.deepEqual(t.encode("unaffable!", 16), [2, 4, 5, 6, 8, 3]);
  assert.deepEqual(t.encode("unx aff", 16), [2, 1, 7, 3]);
  assert.deepEqual(t.encode("aff aff aff aff", 4), [2, 7, 7, 3], "cut to maxTokens, [SEP] kept");
});

test("the model's vocabulary gives Hugging Face's token ids", () => {
  const t = new WordPieceTokenizer(readFileSync(VOCAB, "utf8"));
  assert.equal(t.size, 30522);
  for (const c of REFERENCE.cases) assert.deepEqual(t.encode(c.text, 256), c.ids, c.text);
});
