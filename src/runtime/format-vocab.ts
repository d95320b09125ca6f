// Owns: checking a format's special tags against the loaded model's vocabulary before any is forced by id:
// special ids differ per vocabulary (Qwen3's call open tag is 151657, Qwen3.5's 248058), so a format meant
// for another vocabulary is refused with a clear error instead of forcing the wrong token.

import type { LlamaModel, Token } from "node-llama-cpp";
import { fail } from "../errors.js";
import type { SpecialTag, ToolCallFormat } from "../formats/index.js";

/** The tags a format forces by id: its call tags and its thinking tags. */
const forcedTags = (format: ToolCallFormat): SpecialTag[] => [format.open, format.close, format.think.open, format.think.close];

/** The first forced tag whose id this vocabulary spells differently, with what it spells; undefined when all match. */
export function mismatchedTag(format: ToolCallFormat, spell: (token: number) => string, vocabSize: number): { tag: SpecialTag; spelled: string } | undefined {
  for (const tag of forcedTags(format)) {
    const spelled = tag.token >= 0 && tag.token < vocabSize ? spell(tag.token) : "(no such token)";
    if (spelled !== tag.text) return { tag, spelled };
  }
  return undefined;
}

/** Throws `unsupported_model` when the format's tags are not those ids in this model's vocabulary. */
export function checkFormatVocabulary(model: LlamaModel, format: ToolCallFormat, vocabSize: number): void {
  const bad = mismatchedTag(format, (token) => model.detokenize([token as Token], true), vocabSize);
  if (bad === undefined) return;
  fail(
    "unsupported_model",
    `format "${format.id}" forces ${bad.tag.text} as token ${bad.tag.token}, but this model's token ${bad.tag.token} is ${JSON.stringify(bad.spelled)}: ` +
      "use the format of the model's vocabulary (qtc detects it from the GGUF's chat template; --format overrides)",
  );
}
